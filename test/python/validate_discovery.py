"""Validates cutroom's discovery documents with the official validators of their formats.

Reads {"agent_card": {...}, "openapi": {...}} on stdin and prints {"agent_card": [errors],
"openapi": [errors]} (empty lists: valid). Used by test/discovery-documents.test.ts, run in
.tools/venv-fuzz (pins: test/python/requirements-discovery.txt).

- The A2A Agent Card is parsed into the official a2a-sdk's AgentCard (the lf.a2a.v1 protobuf
  message of A2A 1.0) strictly: an unknown field or a wrong type is an error. Protobuf does not
  enforce the spec's REQUIRED fields, so they are checked from the message descriptors' own
  google.api.field_behavior annotations. Finally the SDK's client-side reader (parse_agent_card)
  must accept the card as a client would fetch it.
- The OpenAPI document goes through openapi-spec-validator (OpenAPI 3.1 and its JSON Schema dialect).
"""

import copy
import json
import sys

from a2a.client.card_resolver import parse_agent_card
from a2a.types import AgentCard
from a2a.utils.constants import PROTOCOL_VERSION_CURRENT
from google.api import field_behavior_pb2
from google.protobuf.json_format import ParseDict, ParseError
from openapi_spec_validator import validate as validate_openapi
from openapi_spec_validator.validation.exceptions import OpenAPIValidationError


def missing_required(message, path="card"):
    """Paths of REQUIRED fields (field_behavior) left unset anywhere in a parsed message."""
    errors = []
    for field in message.DESCRIPTOR.fields:
        behaviors = field.GetOptions().Extensions[field_behavior_pb2.field_behavior]
        value = getattr(message, field.name)
        repeated = field.is_repeated
        if field_behavior_pb2.REQUIRED in behaviors:
            unset = len(value) == 0 if repeated else (not message.HasField(field.name) if field.message_type else value in ("", 0, False))
            if unset:
                errors.append(f"{path}.{field.json_name} is required")
        if field.message_type and not field.message_type.GetOptions().map_entry and field.message_type.full_name.startswith("lf.a2a"):
            items = list(value) if repeated else ([value] if message.HasField(field.name) else [])
            for i, item in enumerate(items):
                errors.extend(missing_required(item, f"{path}.{field.json_name}" + (f"[{i}]" if repeated else "")))
        if field.message_type and field.message_type.GetOptions().map_entry:
            value_field = field.message_type.fields_by_name["value"]
            if value_field.message_type and value_field.message_type.full_name.startswith("lf.a2a"):
                for key, item in value.items():
                    errors.extend(missing_required(item, f"{path}.{field.json_name}[{key}]"))
    return errors


def check_agent_card(card):
    errors = []
    try:
        parsed = ParseDict(copy.deepcopy(card), AgentCard())
    except ParseError as err:
        return [f"not an A2A {PROTOCOL_VERSION_CURRENT} AgentCard: {err}"]
    errors.extend(missing_required(parsed))
    try:
        client_view = parse_agent_card(copy.deepcopy(card))
        if len(client_view.skills) != len(card.get("skills", [])):
            errors.append("the SDK client reads a different number of skills")
    except Exception as err:  # noqa: BLE001 - any refusal of the client reader is a finding
        errors.append(f"a2a-sdk client reader refuses the card: {err}")
    return errors


def check_openapi(doc):
    try:
        validate_openapi(doc)
        return []
    except OpenAPIValidationError as err:
        return [f"{err.message} at {'/'.join(str(p) for p in err.path)}"]


def main():
    docs = json.load(sys.stdin)
    result = {"a2a_protocol_version": PROTOCOL_VERSION_CURRENT}
    if "agent_card" in docs:
        result["agent_card"] = check_agent_card(docs["agent_card"])
    if "openapi" in docs:
        result["openapi"] = check_openapi(docs["openapi"])
    json.dump(result, sys.stdout)


if __name__ == "__main__":
    main()
