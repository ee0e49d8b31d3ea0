"""One tap selects: on a touch screen Plotly reports a tap's click with the point the previous
tap hovered (the first tap only hovers), so a tap on a row selected the row tapped before it.
The browser is told to hover where a finger lands first, and the tap's click then reports that
point. No page is named here."""

from ui.kit.snippets import snippet

# A mouse move at the touch, on the chart's drag layer, before Plotly handles the touch: Plotly
# hovers there, and the click that ends the tap reports that point. Added once per document.
TAP_JS = """export default function () {
  if (window.__labOneTap) return;
  window.__labOneTap = true;
  document.addEventListener("touchstart", (event) => {
    const layer = event.target.closest && event.target.closest(".js-plotly-plot .nsewdrag");
    if (!layer || event.touches.length !== 1) return;
    const touch = event.touches[0];
    const at = { clientX: touch.clientX, clientY: touch.clientY, bubbles: true };
    layer.dispatchEvent(new MouseEvent("mousemove", at));
  }, { capture: true, passive: true });
}"""


# Hidden: an element of no height still takes a gap of the page's column (the lesson bar's
# keys too).
TAP_CSS = "<style>.st-key-_tap,.st-key-_lesson_keys{display:none}</style>"


def one_tap() -> None:
    """Mount the tap fix (hidden by ``TAP_CSS``, which the app's CSS carries)."""
    snippet("one_tap", TAP_JS)(key="_tap")
