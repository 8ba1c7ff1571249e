"""The README's examples run."""

import re
from pathlib import Path

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_example_runs():
    [code] = re.findall(r"```python\n(.*?)```", README.read_text("utf-8"), re.DOTALL)
    namespace: dict = {}
    exec(compile(code, "README.md", "exec"), namespace)
    assert namespace["verdict"].valid
    assert [m.handle for m in namespace["a"].manifest] == ["S1", "S2"]
