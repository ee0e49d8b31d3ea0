// The phone page's live updates, in ES5 (an old in-app browser runs it): wait on the room's
// version (a long-poll), and when it moves draw the page's main part anew. No script: reload.
(function () {
  var root = document.getElementById("live");
  if (!root || !window.XMLHttpRequest || root.getAttribute("data-live") !== "yes") return;
  var code = root.getAttribute("data-code");
  var version = root.getAttribute("data-version");
  var lang = "lang=" + root.getAttribute("data-lang");
  var pause = 0;
  function get(url, done) {
    var request = new XMLHttpRequest();
    request.open("GET", url, true);
    request.timeout = 40000;
    request.onload = function () { done(request.status, request.responseText); };
    request.onerror = request.ontimeout = function () { done(0, ""); };
    request.send();
  }
  function poll() {
    get("/api/rooms/" + code + "/state?since=" + version, function (status, text) {
      if (status === 200) {
        var now = String(JSON.parse(text).version);
        if (now !== version) redraw(now, false);
        else setTimeout(poll, 0);
      } else if (status === 404 || status === 403) {
        redraw(version, true);  // ended, expired or removed: the page says so, and nothing more
      } else {
        later();  // away or busy: try again, less often each time
      }
    });
  }
  function later() {
    pause = Math.min(pause ? pause * 2 : 1000, 10000);
    setTimeout(poll, pause);
  }
  function redraw(now, last) {
    get("/join/" + code + "?part=main&" + lang, function (status, text) {
      if (status === 200 || last) root.innerHTML = text;
      if (status === 200) { version = now; pause = 0; }
      if (last) return;
      if (status === 200) setTimeout(poll, 0);
      else later();
    });
  }
  poll();
})();
