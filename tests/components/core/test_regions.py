"""The region table is what cfn-lint's data says, and the AZ-ID prefixes cover its regions."""

import json
import re

from components.cluster.instance_types import GPU_INSTANCE_TYPES
from components.core.regions import (
    AZ_ID_PREFIXES,
    HYPERPOD_INSTANCE_TYPES,
    REGION_TABLE_PATH,
    arn_parts,
    az_id_region,
    regions_offering,
)
from scripts.derive_region_facts import derive


def test_the_committed_table_is_what_the_script_derives_from_cfn_lint():
    assert json.loads(REGION_TABLE_PATH.read_text()) == derive()


def test_p5e_is_offered_nowhere_and_p6_b300_in_four_regions():
    assert regions_offering("ml.p5e.48xlarge") == []
    assert regions_offering("ml.p6-b300.48xlarge") == [
        "ap-south-2",
        "ap-southeast-3",
        "us-east-1",
        "us-west-2",
    ]


def test_every_gpu_instance_type_but_p5e_is_offered_in_some_region():
    nowhere = [n for n in GPU_INSTANCE_TYPES if not regions_offering(n) and n != "ml.p5e.48xlarge"]
    assert not nowhere, (
        f"cfn-lint's data offers {nowhere} for HyperPod in no region, so every stack naming them "
        "is refused: upgrade cfn-lint (requirements-dev.txt) and run scripts/derive_region_facts.py"
        " components/core/hyperpod_regions.json"
    )


def test_every_hyperpod_region_has_an_az_id_prefix_built_the_documented_way():
    # AWS: the region's country code, the initials of its direction, and its number.
    directions = {"east": "e", "west": "w", "north": "n", "south": "s", "central": "c"}
    assert set(AZ_ID_PREFIXES) == set(HYPERPOD_INSTANCE_TYPES)
    for region, prefix in AZ_ID_PREFIXES.items():
        country, direction, number = region.split("-")
        initials = "".join(
            directions[word] for word in re.findall("north|south|east|west|central", direction)
        )
        assert prefix == f"{country}{initials}{number}"


def test_an_az_id_names_its_region():
    assert az_id_region("usw2-az4") == "us-west-2"
    assert az_id_region("apne1-az1") == "ap-northeast-1"
    assert az_id_region("xyz9-az1") is None


def test_an_arn_gives_its_region_and_account():
    arn = "arn:aws:kms:eu-west-1:210987654321:key/abc"
    assert arn_parts(arn) == {"region": "eu-west-1", "account": "210987654321"}
