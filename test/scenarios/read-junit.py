# Reads a JUnit XML file with junitparser (a real consumer, as CI plugins use) and prints what it
# understood as JSON: suites with their counts, time and properties, cases with their time, result and output.
import json
import sys

from junitparser import JUnitXml

report = JUnitXml.fromfile(sys.argv[1])
suites = []
for suite in report:
    cases = []
    for case in suite:
        cases.append({
            "name": case.name,
            "classname": case.classname,
            "time": case.time,
            "results": [{"kind": type(result).__name__, "message": result.message} for result in case.result],
            "system_out": case.system_out,
        })
    suites.append({
        "name": suite.name,
        "tests": suite.tests,
        "failures": suite.failures,
        "skipped": suite.skipped,
        "errors": suite.errors,
        "time": suite.time,
        "properties": {prop.name: prop.value for prop in suite.properties()},
        "cases": cases,
    })
print(json.dumps(suites))
