import json, time, collections, hashlib, os
import tools.render.render as R
calls = collections.Counter(); cost = collections.Counter(); byfn = collections.Counter(); nfn = collections.Counter(); full = collections.Counter()
orig = R._run
def _run(stack, config, program, account_id):
    key = hashlib.md5(json.dumps([stack, config.values, sorted(config.secret_keys or []), account_id], sort_keys=True, default=str).encode()).hexdigest()[:10]
    t = time.process_time()
    ok = False
    try:
        r = orig(stack, config, program, account_id); ok = len(r.resources) > 50
        return r
    finally:
        c = time.process_time() - t
        fn = os.environ.get("PYTEST_CURRENT_TEST","?").split(" ")[0].split("[")[0]
        calls[key] += 1; cost[key] += c; byfn[fn] += c; nfn[fn] += 1; full[fn] += ok
R._run = _run
def pytest_sessionfinish(session):
    with open(f"/tmp/h24count.{os.getpid()}.txt","w") as f:
        for k, c in byfn.most_common(120):
            f.write(f"{c:6.2f} {nfn[k]:4d} {full[k]:4d} {k}\n")
