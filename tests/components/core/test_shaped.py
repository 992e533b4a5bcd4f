from pydantic import ByteSize, TypeAdapter

from infra.stack_settings import StackSettings


def _patterns(schema: object) -> set[str]:
    if isinstance(schema, dict):
        own = {schema["pattern"]} if isinstance(schema.get("pattern"), str) else set()
        return own.union(*(_patterns(v) for v in schema.values()))
    if isinstance(schema, list):
        return set().union(*(_patterns(v) for v in schema))
    return set()


def test_no_setting_is_refused_with_a_regex():
    # pydantic refuses a Field(pattern=...) with the regex itself ("should match pattern
    # '^arn:aws...'"); shaped_str says the shape in words. ByteSize's own pattern is answered
    # "must be a size such as 8GiB".
    byte_size = _patterns(TypeAdapter(ByteSize).json_schema())
    assert _patterns(StackSettings.model_json_schema()) <= byte_size
