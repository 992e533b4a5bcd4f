"""The policy pack the Pulumi CLI runs: `pulumi preview --policy-pack policy`."""

import sys
from pathlib import Path

from pulumi_policy import EnforcementLevel, PolicyPack

# The CLI runs the pack from this folder, but its rules are the program's own, in components/,
# which must be importable from the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from policy.policies import POLICIES

PolicyPack("hyperpod-dpd", POLICIES, enforcement_level=EnforcementLevel.MANDATORY)
