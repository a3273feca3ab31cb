import json, os, sys
rules = json.load(open(sys.argv[1]))["rules"]
missing = []
for r in rules:
    p = os.path.join(sys.argv[2], r["id"] + ".md")
    if not os.path.exists(p):
        missing.append(r["id"] + ": no page")
        continue
    text = open(p).read()
    for sec in ("## What it detects", "## Why it is slow"):
        if sec not in text:
            missing.append(r["id"] + ": no '" + sec + "'")
    if "## Example" not in text and "```" not in text:
        missing.append(r["id"] + ": no example")
    if "## The fix" not in text and "## Fix" not in text:
        missing.append(r["id"] + ": no '## The fix'")
for m in missing:
    print("error:", m)
if missing:
    sys.exit(1)
print("all %d rules documented" % len(rules))
