"""The report as a user sees it: rendered by headless Chromium, offline.

Chromium loads a copy of ``index.html`` with a small script appended that, after the page's
load event, records how many images decoded (``img.complete && img.naturalWidth > 0``) in
``document.title`` and ``data-*`` attributes of ``<body>``; ``--dump-dom`` returns the DOM
after the script ran. A screenshot of the unmodified page must show a non-blank picture.
"""
import os
import re
import subprocess

import pytest

from pyiml.report import Settings, available_methods, build_report, demo_cases
from pyiml.report import r_side

CHROMIUM = "/usr/bin/chromium"

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="chromium not installed")

CHECK_SCRIPT = """
<script>
window.addEventListener('load', function () {
  var imgs = Array.prototype.slice.call(document.images);
  var bad = imgs.filter(function (i) { return !(i.complete && i.naturalWidth > 0); });
  var ids = Array.prototype.map.call(document.querySelectorAll('section[id]'), function (s) {
    return s.id + ':' + (s.getBoundingClientRect().height > 0 ? 1 : 0); });
  document.body.setAttribute('data-images-total', imgs.length);
  document.body.setAttribute('data-images-bad', bad.length);
  document.body.setAttribute('data-sections', ids.join(' '));
  document.title = 'checked:' + imgs.length + ':' + bad.length;
});
</script>
"""


def _chromium(tmp_path, *args, timeout=60):
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           "--host-resolver-rules=MAP * ~NOTFOUND", f"--user-data-dir={tmp_path / 'chromium-profile'}",
           "--virtual-time-budget=10000", *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)


def _check_page(tmp_path, page_html: str, name: str):
    path = tmp_path / name
    path.write_text(page_html.replace("</body>", CHECK_SCRIPT + "</body>"), encoding="utf-8")
    res = _chromium(tmp_path, "--dump-dom", path.as_uri())
    assert res.returncode == 0, res.stderr[-2000:]
    body = re.search(r"<body([^>]*)>", res.stdout)
    assert body, res.stdout[:500]
    attrs = dict(re.findall(r'data-([a-z-]+)="([^"]*)"', body.group(1)))
    return attrs, res.stdout


def _png_size_and_colours(path):
    """Width, height and number of distinct colours of a PNG (Pillow ships with matplotlib)."""
    from PIL import Image

    with Image.open(path) as im:
        assert im.format == "PNG"
        rgb = im.convert("RGB")
        colours = rgb.getcolors(maxcolors=1 << 20)
        return rgb.width, rgb.height, len(colours) if colours is not None else 1 << 20


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("browser-report")
    res = build_report(demo_cases(), out_dir=out, settings=Settings.small(), r_seed=1, progress=False)
    return res, res.path.read_text(encoding="utf-8")


def test_every_image_decodes_and_every_section_renders(report, tmp_path):
    res, page = report
    assert res.failures == []
    attrs, dom = _check_page(tmp_path, page, "check.html")
    n_img = page.count("<img ")
    assert n_img >= 2 * len(available_methods())
    assert attrs["images-total"] == str(n_img)
    assert attrs["images-bad"] == "0"
    assert "<title>checked:" in dom
    shown = dict(item.split(":") for item in attrs["sections"].split())
    assert set(shown) == set(res.section_ids)
    assert all(v == "1" for v in shown.values()), [k for k, v in shown.items() if v != "1"]
    for key in ("diabetes", "iris"):
        assert f"{key}-model" in shown
    assert r_side.SECTION_ID in shown


def test_the_check_detects_a_broken_image(report, tmp_path):
    _, page = report
    broken = page.replace("data:image/png;base64,", "data:image/png;base64,AAAA", 1)
    attrs, _ = _check_page(tmp_path, broken, "broken.html")
    assert attrs["images-bad"] == "1"


def test_screenshot_is_not_blank(report, tmp_path):
    res, _ = report
    shot = tmp_path / "shot.png"
    out = _chromium(tmp_path, f"--screenshot={shot}", "--window-size=1200,3000", res.path.as_uri())
    assert out.returncode == 0, out.stderr[-2000:]
    w, h, n_colours = _png_size_and_colours(shot)
    assert (w, h) == (1200, 3000)
    assert n_colours > 50  # text, tables and plots, not an empty page
