import json
import sys

d = json.load(open(sys.argv[1]))
run = d["runs"][0]
rules = run["tool"]["driver"]["rules"]
print("rules:", " ".join(r["id"] for r in rules))
print("helpUri:", " ".join(r["helpUri"] for r in rules))
print("markdown link:", all("](" + r["helpUri"] + ")" in r["help"]["markdown"] for r in rules))
fps = set()
for r in sorted(run["results"], key=lambda r: r["ruleId"]):
    reg = r["locations"][0]["physicalLocation"]["region"]
    fixes = r.get("fixes", [])
    extra = ""
    if r["ruleId"] == "algebraic-float-literal" and reg["startLine"] == 8:
        rep = fixes[0]["artifactChanges"][0]["replacements"][0]
        extra = " %r byteOffset=%d" % (fixes[0]["description"]["text"], rep["deletedRegion"]["byteOffset"])
    print("result %s %d:%d fixes=%d%s" % (r["ruleId"], reg["startLine"], reg["startColumn"], len(fixes), extra))
    fps.add(r["partialFingerprints"]["cudaL1/v1"])
loc = run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
print("uris:", loc["uri"], loc["uriBaseId"])
print("fingerprints: %d distinct" % len(fps))
