"""What must fit, in real Chromium: /kernel's numbers stay in their own bars, the phone's
page drawer closes from its chevron (not from under "中文"), the cross-attention formula fits its
column on a phone and on laptops, a switch that is off reads at a projector, and the app's CSS
comes before the top bar that it relabels."""

import io

import pytest
from PIL import Image
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

pytestmark = pytest.mark.browser


# --- /kernel: the online softmax's numbers -----------------------------------------------------

# The blocks' panel (Plotly's subplot xy): each bar's centre and slot width, and every number
# drawn on it (ℓ in the bars, m on its line, anything on the rescale diamonds).
BLOCK_NUMBERS = """() => {
  const panel = document.querySelector('.st-key-online_softmax_steps .subplot.xy');
  const bars = [...panel.querySelectorAll('g.trace.bars path')].map(p => p.getBoundingClientRect())
    .filter(r => r.width > 0).map(r => (r.left + r.right) / 2);
  const texts = [...panel.querySelectorAll('text.bartext, .textpoint text')]
    .filter(e => e.textContent.trim() !== '').map(e => {
      const r = e.getBoundingClientRect();
      return {text: e.textContent, x0: r.left, x1: r.right}; });
  return {bars, texts, diamonds: panel.querySelectorAll('path.point').length};
}"""


@pytest.mark.parametrize("screen", ["phone", "laptop", "projector"])
def test_the_online_softmax_numbers_stay_inside_their_own_bars(opened, screen):
    """At one number a block (9 bars, the rescale factor ×0.397 at 喜), every number on the blocks'
    panel lies within its own bar's slot: one wider than the slot ran into its neighbours'."""
    tab = opened(screen, "kernel?lang=zh&block=1", ".st-key-online_softmax_steps .subplot.xy")
    found = tab.evaluate(BLOCK_NUMBERS)
    bars = found["bars"]
    assert len(bars) == 9 and found["diamonds"] >= 9, found  # the bars and the diamonds drawn
    slot = (bars[-1] - bars[0]) / (len(bars) - 1)
    outside = []
    for box in found["texts"]:
        centre = min(bars, key=lambda x: abs(x - (box["x0"] + box["x1"]) / 2))
        if box["x0"] < centre - slot / 2 or box["x1"] > centre + slot / 2:
            outside.append((box["text"], round(box["x1"] - box["x0"]), round(slot)))
    assert len(found["texts"]) >= 9, found["texts"]  # ℓ's numbers at least
    assert outside == []


# --- the phone's page drawer -------------------------------------------------------------------

CHEVRON = """() => {
  const button = document.querySelector('[data-testid=stSidebarCollapseButton] button');
  const r = button.getBoundingClientRect();
  const hit = document.elementFromPoint((r.left + r.right) / 2, (r.top + r.bottom) / 2);
  const covering = [...document.querySelectorAll('.st-key-app_switches p')].filter(p => {
    const b = p.getBoundingClientRect();
    return getComputedStyle(p).visibility === 'visible' && b.right > r.left && b.left < r.right
      && b.bottom > r.top && b.top < r.bottom; }).map(p => p.textContent);
  return {reaches: !!hit && button.contains(hit), covering};
}"""
DRAWER = "() => document.querySelector('[data-testid=stSidebar]').getAttribute('data-collapsed')"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_the_phone_drawer_closes_from_its_chevron(opened, lang):
    """On a phone the pages open in a drawer from the top bar: its close chevron is what a tap on
    it reaches, with no switch's label (中文, EN) over it, and the tap closes the drawer."""
    tab = opened("phone", f"kernel?lang={lang}", "[data-testid=stExpandSidebarButton]")
    tab.locator("[data-testid=stExpandSidebarButton]").tap()
    tab.wait_for_function(f"({DRAWER})() === 'false'", timeout=10_000)
    tab.wait_for_timeout(600)  # the drawer slides in
    assert tab.evaluate(CHEVRON) == {"reaches": True, "covering": []}
    tab.locator("[data-testid=stSidebarCollapseButton] button").tap(timeout=5_000)
    tab.wait_for_function(f"({DRAWER})() === 'true'", timeout=10_000)
    switches = tab.locator(".st-key-app_switches")
    assert switches.is_visible()  # and they come back when it closes


# --- /variants: the cross-attention formula ----------------------------------------------------

FORMULAS = """() => [...document.querySelectorAll('.katex-display')].map(e => {
  const column = e.closest('[data-testid=stElementContainer]').getBoundingClientRect();
  const shown = e.getBoundingClientRect();
  return {formula: e.textContent.slice(0, 30), width: e.scrollWidth, room: column.width,
          right: shown.left + e.scrollWidth, edge: Math.min(column.right, innerWidth)}; })"""


@pytest.mark.parametrize("screen", ["phone", "laptop", "laptop-wide", "projector"])
def test_the_cross_attention_formula_fits_its_column(opened, screen):
    """/variants' trained cross-attention: its formula's full width fits the column it sits in
    and ends inside the window (on one line it ran past a phone's edge, and a 1366 laptop's
    column), so no part of it is cut off or hidden behind a scroll."""
    tab = opened(screen, "variants?variant=cross&lang=zh", ".katex-display")
    found = tab.evaluate(FORMULAS)
    assert found, "no formula drawn"
    assert [f for f in found if f["width"] > f["room"] or f["right"] > f["edge"] + 1] == []


# --- presenter mode: a switch that is off ------------------------------------------------------


def luminance(rgb):
    """WCAG relative luminance of an sRGB colour."""
    channels = [c / 255 for c in rgb[:3]]
    linear = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a, b):
    light, dark = sorted([luminance(a), luminance(b)], reverse=True)
    return (light + 0.05) / (dark + 0.05)


TRACKS = "[data-testid=stCheckbox] label > div:not([data-testid])"


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_switch_that_is_off_reads_at_the_projector(opened, lang):
    """At a projector, every switch that is off (÷√d here) is drawn with ink of at least 3:1
    contrast against the page (WCAG's minimum for a control's parts): Streamlit's pale grey
    track, about 1.5:1 on white, vanished at the back of a room."""
    tab = opened("projector", f"?lang={lang}&present=true&scale=false", ".st-key-lab_scale input")
    ratios = {}
    for track in tab.locator(TRACKS).all():
        if track.locator("xpath=..").locator("input").is_checked() or not track.is_visible():
            continue
        track.scroll_into_view_if_needed()
        box = track.bounding_box()
        around = {"x": box["x"] - 3, "y": box["y"] - 3}  # 3 px of the page around the track
        around |= {"width": box["width"] + 6, "height": box["height"] + 6}
        part = Image.open(io.BytesIO(tab.screenshot(clip=around))).convert("RGB")
        background = part.getpixel((0, 0))
        ink = min(part.get_flattened_data(), key=luminance)
        key = track.evaluate("e => e.closest('[class*=st-key-]').className.match(/st-key-\\w+/)[0]")
        ratios[key] = round(contrast(ink, background), 2)
    assert "st-key-lab_scale" in ratios, ratios  # the ÷√d switch is off and was measured
    assert {key: r for key, r in ratios.items() if r < 3} == {}


# --- the top bar's "N more" --------------------------------------------------------------------


CSS_MARK = "rc-overflow-item-rest"  # in the app's CSS only


def _kinds(frames):
    """The server's messages in order: the navigation, and each html element by its text."""
    kinds = []
    for payload in frames:
        message = ForwardMsg()
        message.ParseFromString(payload)
        kind = message.WhichOneof("type")
        if kind == "navigation":
            kinds.append("navigation")
        elif kind == "delta" and message.delta.new_element.WhichOneof("type") == "html":
            kinds.append(message.delta.new_element.html.body)
    return kinds


def test_the_css_that_relabels_the_top_bar_comes_before_the_top_bar(browser):
    """A first visit's messages bring the app's CSS (which hides Streamlit's English "3 more" and
    draws 更多) before the navigation that draws the top bar: after it, a 1024-px window showed
    "3 more" for 3.4-6.3 s in the Chinese interface; before it, 0.05-0.3 s (the browser still
    draws the top bar before its lazily loaded html element applies the CSS)."""
    base, chromium = browser
    context = chromium.new_context(viewport={"width": 1024, "height": 720})
    tab = context.new_page()
    frames = []
    tab.on("websocket", lambda socket: socket.on("framereceived", lambda f: frames.append(f)))
    try:
        tab.goto(f"{base}/?lang=zh")
        tab.wait_for_selector(".rc-overflow-item-rest", state="attached", timeout=60_000)
        kinds = []
        for _ in range(600):  # until both have come (at most 60 s)
            kinds = _kinds([f for f in frames if isinstance(f, bytes)])
            if "navigation" in kinds and any(CSS_MARK in kind for kind in kinds):
                break
            tab.wait_for_timeout(100)
        else:
            pytest.fail(f"the CSS or the navigation never came: {kinds}")
        css = next(i for i, kind in enumerate(kinds) if CSS_MARK in kind)
        assert css < kinds.index("navigation")
    finally:
        context.close()


# --- Streamlit's typing hint, in the page's language -------------------------------------------

# What the hint under a box being typed in shows: its first span's own text (hidden) and what is
# drawn in its place, and the rest (a length counter) as it is.
HINT = """() => {
  const hint = document.querySelector('[data-testid=InputInstructions]');
  if (!hint) return null;
  const [first, ...rest] = hint.querySelectorAll(':scope > span');
  const drawn = getComputedStyle(first, '::after').content;
  return {hidden: getComputedStyle(first).visibility === 'hidden',
          drawn: drawn === 'none' ? first.textContent : JSON.parse(drawn),
          rest: rest.map(span => span.textContent)};
}"""
HINTS = {
    "zh": ("按 Enter 键确认", "按 Enter 键提交"),
    "en": ("Press Enter to apply", "Press Enter to submit"),
}


@pytest.mark.parametrize("lang", ["zh", "en"])
@pytest.mark.parametrize(
    ("path", "box", "in_form", "counter"),
    [
        ("quiz", "[class*=st-key-quiz_answer_] input", False, False),
        ("", ".st-key-lab_text input", False, True),
        ("classroom", ".st-key-classroom_code_typed input", True, True),
    ],
)
def test_the_typing_hint_speaks_the_page_s_language(opened, lang, path, box, in_form, counter):
    """While a student types, the hint under the box reads in the page's language (Streamlit
    writes "Press Enter to apply" in English in every language): "submit" in a form, and a box
    with a length limit keeps its counter beside it."""
    tab = opened("laptop", f"{path}?lang={lang}", box)
    tab.locator(box).first.click()
    tab.keyboard.type("12")
    tab.wait_for_selector("[data-testid=InputInstructions]", timeout=10_000)
    hint = tab.evaluate(HINT)
    assert hint["hidden"] and hint["drawn"] == HINTS[lang][in_form]
    assert any("/" in text for text in hint["rest"]) == counter


# --- /steps: every step's formulas fit a phone -------------------------------------------------

# Each formula's ink (KaTeX's drawn boxes) against its own box, which scrolls what is wider, and
# against the window.
FORMULA_INK = """() => [...document.querySelectorAll('.katex-display')].map(display => {
  const box = display.getBoundingClientRect();
  const ink = [...display.querySelectorAll('.katex-html .base')]
    .map(b => b.getBoundingClientRect());
  return {text: display.textContent.slice(0, 30), box: Math.min(box.right, innerWidth),
          left: Math.min(...ink.map(r => r.left)) - box.left,
          right: Math.max(...ink.map(r => r.right))}; })"""


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_every_step_s_formulas_fit_a_phone(opened, lang):
    """/steps 1–6 on a phone at the largest d_k a link allows: each formula is drawn inside its
    box and the window (the projections' line, 419 px wide, had "(9×64)" scrolled out)."""
    for step in range(1, 7):
        tab = opened("phone", f"steps?lang={lang}&step={step}&d=6144", ".katex-display")
        formulas = tab.evaluate(FORMULA_INK)
        assert formulas, step
        cut = [(step, f["text"]) for f in formulas if f["right"] > f["box"] + 1 or f["left"] < -1]
        assert cut == []
        tab.context.close()
