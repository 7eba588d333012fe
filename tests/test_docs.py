"""The ``python`` code blocks of ``docs/*.md`` run, page by page, in one namespace
per page, as a reader would paste them; their asserts check the values shown."""
import pathlib
import re

import pytest

DOCS = pathlib.Path(__file__).resolve().parent.parent / "docs"
PAGES = sorted(DOCS.glob("*.md"))
BLOCK = re.compile(r"^```python\n(.*?)^```", re.M | re.S)


def test_every_page_is_indexed():
    index = (DOCS / "README.md").read_text()
    for page in PAGES:
        if page.name != "README.md":
            assert f"({page.name})" in index, f"docs/README.md does not link {page.name}"


@pytest.mark.parametrize("page", [p for p in PAGES if BLOCK.search(p.read_text())],
                         ids=lambda p: p.name)
def test_page_runs(page):
    text = page.read_text()
    if page.name == "distributed.md":   # the optional [distributed] extra (in the test extra)
        pytest.importorskip("dask.distributed", reason="docs/distributed.md needs dask[distributed] "
                            "(pip install weft[distributed])")
    namespace = {"__name__": f"docs_{page.stem}"}
    for m in BLOCK.finditer(text):
        line = text[:m.start()].count("\n") + 2
        # padding keeps the line numbers of tracebacks those of the .md file
        code = compile("\n" * (line - 1) + m.group(1), str(page), "exec")
        exec(code, namespace)   # noqa: S102 -- the repository's own documentation
