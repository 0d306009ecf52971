"""Checks OTLP conversions as OpenTelemetry's own classes read them: python3 otlp-check.py FILE...

Each FILE is a conversion, `.otlp` (protobuf) or `.otlp.json` (OTLP/JSON). Each must parse with the
classes of opentelemetry-proto (PyPI, pinned by .ci/consumers to the proto version proftool
writes): the protobuf as an ExportProfilesServiceRequest; the JSON by protobuf's JSON parser, which
refuses a field the proto does not have, after OTLP/JSON's one exception (trace and span ids in hex,
not base64) is undone, its keys lowerCamelCase as OTLP/JSON requires. Then what the proto's
comments require and a parser does not check: index 0 of every dictionary table its zero value
("one with all default field values"), every index within its table, and a sample's values one,
or one per timestamp.
"""
import base64
import json
import sys

from google.protobuf import json_format
from opentelemetry.proto.collector.profiles.v1development import profiles_service_pb2 as service

TABLES = ["mapping_table", "location_table", "function_table", "link_table", "attribute_table", "stack_table"]


def snake_keys(node):
    """The keys of an OTLP/JSON document that are not lowerCamelCase."""
    if isinstance(node, dict):
        return [k for k in node if "_" in k] + [k for v in node.values() for k in snake_keys(v)]
    if isinstance(node, list):
        return [k for v in node for k in snake_keys(v)]
    return []


def parsed(path):
    request = service.ExportProfilesServiceRequest()
    if path.endswith(".json"):
        doc = json.load(open(path))
        wrong = snake_keys(doc)
        assert not wrong, f"{path}: keys not in lowerCamelCase: {sorted(set(wrong))}"
        for link in doc.get("dictionary", {}).get("linkTable", []):
            for key in ("traceId", "spanId"):
                if key in link:
                    link[key] = base64.b64encode(bytes.fromhex(link[key])).decode()
        json_format.ParseDict(doc, request)
    else:
        request.ParseFromString(open(path, "rb").read())
    return request


def check(path):
    request = parsed(path)
    d = request.dictionary
    sizes = {name: len(getattr(d, name)) for name in TABLES + ["string_table"]}
    assert d.string_table and d.string_table[0] == "", f"{path}: string_table[0] is not \"\""
    for name in TABLES:
        table = getattr(d, name)
        assert table and table[0].ByteSize() == 0, f"{path}: {name}[0] is not the zero value: {table[:1]}"

    def within(index, table, what):
        assert 0 <= index < sizes[table], f"{path}: {what} {index} is outside {table} ({sizes[table]})"

    for m in d.mapping_table:
        within(m.filename_strindex, "string_table", "a mapping's filename_strindex")
    for f in d.function_table:
        for index in (f.name_strindex, f.system_name_strindex, f.filename_strindex):
            within(index, "string_table", "a function's strindex")
    for location in d.location_table:
        within(location.mapping_index, "mapping_table", "a location's mapping_index")
        for line in location.lines:
            within(line.function_index, "function_table", "a line's function_index")
    for stack in d.stack_table:
        for index in stack.location_indices:
            within(index, "location_table", "a stack's location index")
    for a in d.attribute_table:
        within(a.key_strindex, "string_table", "an attribute's key_strindex")
        within(a.unit_strindex, "string_table", "an attribute's unit_strindex")
    profiles = [p for r in request.resource_profiles for s in r.scope_profiles for p in s.profiles]
    assert profiles, f"{path}: no profile"
    for p in profiles:
        within(p.sample_type.type_strindex, "string_table", "a sample type's type_strindex")
        within(p.sample_type.unit_strindex, "string_table", "a sample type's unit_strindex")
        for index in p.attribute_indices:
            within(index, "attribute_table", "a profile's attribute index")
        for s in p.samples:
            within(s.stack_index, "stack_table", "a sample's stack_index")
            within(s.link_index, "link_table", "a sample's link_index")
            times = len(s.timestamps_unix_nano)
            assert len(s.values) <= 1 or len(s.values) == times, f"{path}: {len(s.values)} values, {times} timestamps"


for path in sys.argv[1:]:
    check(path)
print(f"opentelemetry-proto reads all {len(sys.argv) - 1} OTLP conversions, every index within its table")
