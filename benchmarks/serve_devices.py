"""Does every screen of ``humanlike serve`` fit a phone, a tablet and a laptop? One command:

    python benchmarks/serve_devices.py [--screenshots docs/figures] [--json out.json]

Starts ``humanlike serve`` on three short demo studies (classification with 16 response options, triads,
quadruples) and one that accepts computers only (a window of at least 1024x600, no phones or tablets), and clicks through a whole session of each in headless Chromium emulating four devices: a phone
(375x667, touch), a tablet (768x1024, touch), a small laptop (900x497) and a desktop (1400x900). On every screen
(the device check, consent, instructions, breaks, trials, catch trials, the end) it measures how far the page is wider than the
viewport (``document.documentElement.scrollWidth - innerWidth``, px) and which buttons (and judgement images)
lie partly outside the viewport without scrolling, and prints the worst screen per device and task.

With ``--screenshots FOLDER`` it saves small palette PNGs of the screens the docs show
(``serve_device_<device>_<screen>.png``). Needs Debian's chromium and chromium-driver and the web extra.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "src"), str(ROOT / "tests"), str(ROOT / "tests" / "web")]
os.environ["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])

#: (device, task, screen) shown in the docs.
SHOTS = {("phone", "classify", "choices"), ("phone", "triads", "pairs"), ("phone", "classify", "screen-consent"),
         ("tablet", "quads", "pairs"), ("small-laptop", "classify", "choices"), ("phone", "strict", "screen-device")}


def save_small_png(chrome, path: Path, width: int = 360) -> None:
    """A screenshot scaled to ``width`` px and reduced to 48 colours (a few tens of kB)."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(chrome.get_screenshot_as_png())) as image:
        image = image.convert("RGB")
        image = image.resize((width, round(width * image.height / image.width)), Image.LANCZOS)
        image.quantize(colors=48).save(path, optimize=True)


def measure(devices, studies, screenshots: Path | None) -> list[dict]:
    """Each device through each study; ``studies["strict"]`` (computers only) is refused on phones and tablets."""
    from web_devices import complete_session, emulate, layout, open_chrome
    from web_helpers import ServerProcess

    servers = {task: ServerProcess(folder) for task, folder in studies.items()}
    rows = []
    try:
        chrome = open_chrome()
        try:
            for device in devices:
                for task, server in servers.items():
                    emulate(chrome, device)
                    worst = {"device": device.name, "task": task, "size": f"{device.width}x{device.height}",
                             "screens": 0, "max_overflow_px": 0, "max_scroll_px": 0, "buttons_outside": 0,
                             "where": []}

                    def check(screen, device=device, task=task, worst=worst):
                        seen = layout(chrome, device)
                        worst["screens"] += 1
                        overflow = seen["scroll_width"] - seen["width"]
                        worst["max_overflow_px"] = max(worst["max_overflow_px"], overflow)
                        worst["max_scroll_px"] = max(worst["max_scroll_px"], seen["scroll_height"] - seen["height"])
                        worst["buttons_outside"] = max(worst["buttons_outside"], len(seen["outside"]))
                        if overflow > 0 or seen["outside"]:
                            worst["where"].append(f"{screen}: +{overflow}px, {len(seen['outside'])} outside "
                                                  f"({'; '.join(seen['outside'][:2])})")
                        if screenshots and (device.name, task, screen) in SHOTS:
                            save_small_png(chrome, screenshots / f"serve_device_{device.name}_{task}_{screen}.png",
                                           360 if device.width < 800 else 600)
                            SHOTS.discard((device.name, task, screen))

                    worst["ended_on"] = complete_session(chrome, server.url + "/", check)[-1]
                    chrome.delete_all_cookies()
                    rows.append(worst)
                    print(f"{worst['device']:>12} {worst['size']:>9} {task:>8}: {worst['screens']:2d} screens to "
                          f"{worst['ended_on']:<15} too wide by {worst['max_overflow_px']:3d} px, too tall by "
                          f"{worst['max_scroll_px']:3d} px, buttons outside {worst['buttons_outside']:2d}"
                          + (f"  [{worst['where'][0]}]" if worst["where"] else ""), flush=True)
        finally:
            chrome.quit()
    finally:
        for server in servers.values():
            server.kill()
    return rows


def main() -> None:
    from web_devices import DESKTOP, PHONE, SMALL_LAPTOP, TABLET, device_studies

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--screenshots", type=Path, help="save the docs' screenshots here")
    parser.add_argument("--json", type=Path, help="write the measurements here")
    args = parser.parse_args()
    if args.screenshots:
        args.screenshots.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        studies = device_studies(Path(tmp))
        studies["strict"] = device_studies(Path(tmp) / "strict", allow_mobile=False, min_screen_width=1024,
                                           min_screen_height=600)["classify"]
        rows = measure([PHONE, TABLET, SMALL_LAPTOP, DESKTOP], studies, args.screenshots)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
