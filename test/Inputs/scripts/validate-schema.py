"""validate-schema.py SCHEMA DOCUMENT [--break]

Validates a JSON document against a JSON Schema (the draft the schema's
$schema names) with python3-jsonschema and prints "valid" or each error with
its path. --break first removes a required member from the document (a
control: the schema must then reject it). Exit status 0 when valid."""
import json
import sys

import jsonschema

schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
if "--break" in sys.argv:
    # SARIF: a run without its tool; findings JSON: a finding without rule.
    if "runs" in doc:
        del doc["runs"][0]["tool"]
    else:
        del doc["findings"][0]["rule"]
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
errors = sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.absolute_path))
for e in errors:
    print("invalid: /%s: %s" % ("/".join(str(p) for p in e.absolute_path), e.message))
if not errors:
    print("valid")
sys.exit(1 if errors else 0)
