import json

from parliament import analyze_policy_string

from components.storage.policy import bucket_policy

BUCKET = "arn:aws:s3:::weights"


def test_every_request_without_tls_is_denied():
    (deny,) = bucket_policy(BUCKET)["Statement"]
    assert deny["Effect"] == "Deny"
    assert deny["Resource"] == [BUCKET, f"{BUCKET}/*"]
    assert deny["Condition"] == {"Bool": {"aws:SecureTransport": "false"}}


def test_the_access_log_bucket_takes_logs_from_its_own_account_only():
    _, deliver = bucket_policy(BUCKET, receives_logs_from="123456789012")["Statement"]
    assert deliver["Principal"] == {"Service": "logging.s3.amazonaws.com"}
    assert deliver["Action"] == "s3:PutObject"
    assert deliver["Condition"] == {"StringEquals": {"aws:SourceAccount": "123456789012"}}


def test_parliament_finds_nothing_wrong():
    document = bucket_policy(BUCKET, receives_logs_from="123456789012")
    assert analyze_policy_string(json.dumps(document)).findings == []
