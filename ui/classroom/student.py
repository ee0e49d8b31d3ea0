"""A phone that opens the class page is sent on to the light phone page (``/join/CODE``, served
by ``ui.phone``): a few kilobytes instead of Streamlit's bundle, and it works in old in-app
browsers. An old link's student token goes along once: that page keeps it in a cookie.

A projector that reloads keeps its key in the tab (``kept``): such a tab is never sent on.
"""

from urllib.parse import quote, urlencode

import streamlit as st

from classroom.safety import normalise_code
from ui.kit.snippets import snippet
from ui.kit.text import t

POLL = 1.5  # s between looks at a class while its database is away (the page's recover)

# The tab goes on to the phone page unless it keeps a teacher key for this room (a projector
# reloading: the key snippet hands it back and the page teaches again).
SEND_ON_JS = """export default function ({ data }) {
  if (sessionStorage.getItem("attention-lab-teacher-" + data.room)) return;
  window.location.replace(data.target);
}"""


def phone_page(room: str, lang: str, token: str = "") -> str:
    """The phone page's address for ``room``; an old link's token rides along once."""
    query = {"lang": lang} | ({"me": token} if token else {})
    return f"/join/{quote(room)}?{urlencode(query)}"


def send_on(room: str, lang: str, token: str = "") -> None:
    """The class's phone page: this tab goes there by itself; a button if it does not."""
    target = phone_page(room, lang, token)
    st.subheader(t("cl_join_title", lang, room=room))
    st.link_button(t("cl_open_phone_page", lang), target, type="primary", width="stretch")
    snippet("send_on", SEND_ON_JS)(key="_send_on", data={"room": room, "target": target})


def code_box(lang: str) -> None:
    """The code on the board, typed: on to that class's phone page."""
    with st.form("classroom_code", border=False):
        typed = st.text_input(t("cl_code_label", lang), max_chars=12, key="classroom_code_typed")
        go = st.form_submit_button(t("cl_join", lang), type="primary", width="stretch")
    if not go:
        return
    room = normalise_code(typed)
    if room is None:
        st.warning(t("refusal_no_room", lang), icon=":material/error:")
        return
    send_on(room, lang)
