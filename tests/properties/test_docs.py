"""The README's examples run."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_example_runs():
    [code] = re.findall(r"```python\n(.*?)```", README.read_text("utf-8"), re.DOTALL)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["verdict"].valid
    assert [m.handle for m in namespace["a"].manifest] == ["S1"]  # the expired Slack message is withheld
    assert [(r.id, r.reason) for r in namespace["a"].report.records] == [("hb-2025", None),
                                                                         ("slack-2023", "conflict_withheld")]
    assert "[S1] is current and authoritative and holds" in namespace["notes"][0].text
