// humanlike serve: the participant's page. Plain JavaScript, no framework, nothing fetched from another host.
// Every response is POSTed and committed on the server before the next trial is shown; a reload of /p/TOKEN
// asks the server for the next unanswered trial, so nothing is lost and nothing is answered twice.
"use strict";

(function () {
  var config = JSON.parse(document.getElementById("study-config").textContent);
  document.body.classList.add("task-" + config.task);
  var base = config.base;
  var KEYS = "1234567890qwertyuiopasdfghjklzxcvbnm";
  var refreshHz = null;
  var keyHandler = null;

  function $(id) { return document.getElementById(id); }

  function show(id) {
    var screens = document.querySelectorAll(".screen");
    for (var i = 0; i < screens.length; i++) { screens[i].hidden = screens[i].id !== id; }
  }

  function fail(message) {
    $("error-text").textContent = message;
    show("screen-error");
  }

  function onKey(handler) { keyHandler = handler; }
  document.addEventListener("keydown", function (event) {
    if (keyHandler && !event.repeat && $("leave-warning").hidden) { keyHandler(event); }
  });

  // The features the page needs; a browser without one gets a clear message instead of a broken study.
  var FEATURES = [
    ["fetch", function () { return typeof window.fetch === "function"; }],
    ["Promise", function () { return typeof window.Promise === "function"; }],
    ["URLSearchParams", function () { return typeof window.URLSearchParams === "function"; }],
    ["requestAnimationFrame", function () { return typeof window.requestAnimationFrame === "function"; }],
    ["performance.now", function () { return !!(window.performance && performance.now); }],
    ["history.replaceState", function () { return !!(window.history && history.replaceState && history.pushState); }],
    ["canvas", function () { var c = document.createElement("canvas"); return !!(c.getContext && c.getContext("2d")); }],
    ["image decoding (img.decode)", function () {
      return typeof HTMLImageElement === "function" && typeof HTMLImageElement.prototype.decode === "function"; }],
    ["CSS grid and min()", function () {
      return !!(window.CSS && CSS.supports && CSS.supports("display", "grid") && CSS.supports("width", "min(1px, 2px)")); }]
  ];

  function missingFeatures() {
    return FEATURES.filter(function (f) { try { return !f[1](); } catch (e) { return true; } })
                   .map(function (f) { return f[0]; });
  }

  // A phone or tablet: a mobile user agent (iPadOS calls itself a Mac with a touch screen), or a touch
  // screen without any mouse or trackpad.
  function isMobile() {
    if (navigator.userAgentData && navigator.userAgentData.mobile === true) { return true; }
    var agent = navigator.userAgent || "";
    if (/Android|iPhone|iPad|iPod|Mobile|Tablet|Silk|Kindle/i.test(agent)) { return true; }
    if (/Macintosh/.test(agent) && navigator.maxTouchPoints > 1) { return true; }
    return window.matchMedia("(pointer: coarse)").matches && !window.matchMedia("(any-pointer: fine)").matches;
  }

  // Why this device cannot take part (refuse: nothing the participant can change here), or what they can
  // change (a window to enlarge, a device to turn); null when it fits the study.
  function deviceProblem() {
    var minW = config.min_screen_width, minH = config.min_screen_height;
    if (!config.allow_mobile && isMobile()) {
      return {refuse: true, title: "Please use a computer",
              text: "This study cannot be done on a phone or tablet. Please open this link on a desktop or " +
                    "laptop computer with a mouse or trackpad and a keyboard."};
    }
    var w = window.innerWidth, h = window.innerHeight;
    if (w >= minW && h >= minH) { return null; }
    var sw = window.screen.width, sh = window.screen.height;
    var need = minW + " \u00d7 " + minH + " pixels";
    if ((sw < minW || sh < minH) && (sh < minW || sw < minH)) {
      return {refuse: true, title: "Your screen is too small for this study",
              text: "This study needs a screen of at least " + need + "; yours has " + sw + " \u00d7 " + sh +
                    ". Please open this link on a device with a larger screen."};
    }
    var turn = (sw < minW || sh < minH) ? " Turn your device to " + (minW > minH ? "landscape" : "portrait") + "." : "";
    return {refuse: false, title: "Please enlarge the window",
            text: "This study needs a window of at least " + need + "; yours is " + w + " \u00d7 " + h + "." +
                  turn + " Enlarge or maximise the window (or make it full screen: F11, or Ctrl+Cmd+F on a " +
                  "Mac); the study continues by itself when it fits."};
  }

  // Runs `proceed` once the device fits the study; shows why not until then (re-checked on every resize).
  function whenDeviceFits(proceed) {
    var problem = deviceProblem();
    if (!problem) { proceed(); return; }
    $("device-title").textContent = problem.title;
    $("device-text").textContent = problem.text;
    document.body.setAttribute("data-device", problem.refuse ? "refused" : "too-small");
    show("screen-device");
    if (problem.refuse) { return; }
    function recheck() {
      if (deviceProblem()) { return; }
      window.removeEventListener("resize", recheck);
      document.body.removeAttribute("data-device");
      proceed();
    }
    window.addEventListener("resize", recheck);
  }

  // Fullscreen, when the study asks for it: only on a click or key press (browsers refuse it otherwise);
  // a browser that refuses (an iPhone) goes on in the window.
  function enterFullscreen() {
    var root = document.documentElement;
    var request = root.requestFullscreen || root.webkitRequestFullscreen;
    if (!config.fullscreen || !request || document.fullscreenElement || document.webkitFullscreenElement) { return; }
    try {
      var pending = request.call(root);
      if (pending && pending.catch) { pending.catch(function () {}); }
    } catch (error) { /* refused: the study runs in the window */ }
  }

  // The back button shows a warning instead of leaving: an extra history entry (added on a click, so that
  // the browser does not skip it) catches the first "back"; "Continue" puts it back.
  var guarded = false;
  var finished = false;
  function guardBackButton() {
    if (guarded) { return; }
    guarded = true;
    history.pushState({humanlike: "stay"}, "", window.location.href);
    window.addEventListener("popstate", function () {
      if (finished) { history.back(); return; }
      $("leave-warning").hidden = false;
    });
    $("leave-stay").onclick = function () {
      history.pushState({humanlike: "stay"}, "", window.location.href);
      $("leave-warning").hidden = true;
    };
  }

  function waitForSpaceOrClick(button) {
    return new Promise(function (resolve) {
      function done() { onKey(null); button.onclick = null; enterFullscreen(); guardBackButton(); resolve(); }
      button.onclick = done;
      onKey(function (event) { if (event.key === " " || event.key === "Enter") { event.preventDefault(); done(); } });
    });
  }

  function api(path, body) {
    var options = body === undefined ? {} : {method: "POST", headers: {"Content-Type": "application/json"},
                                               body: JSON.stringify(body)};
    options.cache = "no-store";
    return fetch(base + path, options).then(function (response) {
      return response.json().catch(function () { return {}; }).then(function (payload) {
        return {status: response.status, payload: payload};
      });
    });
  }

  // Retries a request that did not reach the server (network errors); a response with a status is returned.
  function apiRetrying(path, body) {
    var attempt = 0;
    function go() {
      return api(path, body).catch(function (error) {
        attempt += 1;
        if (attempt > 8) { throw error; }
        return new Promise(function (r) { setTimeout(r, 250 * attempt); }).then(go);
      });
    }
    return go();
  }

  function nextFrame() { return new Promise(function (resolve) { requestAnimationFrame(resolve); }); }

  // The refresh rate: the median interval of 30 animation frames.
  function estimateRefresh() {
    var stamps = [];
    function step(t) {
      stamps.push(t);
      return stamps.length > 30 ? null : nextFrame().then(step);
    }
    return nextFrame().then(step).then(function () {
      var d = [];
      for (var i = 1; i < stamps.length; i++) { d.push(stamps[i] - stamps[i - 1]); }
      d.sort(function (a, b) { return a - b; });
      var median = d[Math.floor(d.length / 2)];
      refreshHz = median > 0 ? Math.min(1000, Math.max(1, 1000 / median)) : null;
    });
  }

  // Shows `element` for `ms` milliseconds counted in animation frames. A change made in the animation-frame
  // callback of time t is on the screen from the frame painted after it: the element is shown in the callback
  // of `onset` and hidden in the first callback at least `ms` (less half a frame) later, so it is on screen
  // for a whole number of frames. Resolves with that measured duration (hide - onset) and the frame count.
  function present(element, ms) {
    return nextFrame().then(function (onset) {
      element.hidden = false;
      var frames = 1;
      var frameMs = refreshHz ? 1000 / refreshHz : 16.7;
      function loop(t) {
        if (t - onset >= ms - frameMs / 2) {
          element.hidden = true;
          return {ms: t - onset, frames: frames};
        }
        frames += 1;
        return nextFrame().then(loop);
      }
      return nextFrame().then(loop);
    });
  }

  function paintMask() {
    var canvas = $("mask");
    var context = canvas.getContext("2d");
    var image = context.createImageData(canvas.width, canvas.height);
    for (var i = 0; i < image.data.length; i += 4) {
      var v = Math.floor(Math.random() * 256);
      image.data[i] = image.data[i + 1] = image.data[i + 2] = v;
      image.data[i + 3] = 255;
    }
    context.putImageData(image, 0, 0);
  }

  function loadImages(urls) {
    return Promise.all(urls.map(function (url) {
      var img = new Image();
      img.src = url;
      return img.decode().then(function () { return img; });
    }));
  }

  function resetTrialScreen() {
    ["fixation", "stimulus", "mask", "prompt", "choices", "pairs", "feedback"].forEach(function (id) { $(id).hidden = true; });
  }

  function chooseLabel(options) {
    var grid = $("choices");
    grid.innerHTML = "";
    return new Promise(function (resolve) {
      var shownAt = performance.now();
      options.forEach(function (label, i) {
        var button = document.createElement("button");
        button.type = "button";
        button.className = "choice";
        button.setAttribute("data-label", label);
        button.textContent = label;
        if (i < KEYS.length) {
          var kbd = document.createElement("kbd");
          kbd.textContent = KEYS[i];
          button.appendChild(kbd);
        }
        button.onclick = function () { finish(label); };
        grid.appendChild(button);
      });
      function finish(label) { onKey(null); resolve({response: label, rt: performance.now() - shownAt}); }
      onKey(function (event) {
        var i = KEYS.indexOf(event.key.toLowerCase());
        if (i >= 0 && i < options.length) { finish(options[i]); }
      });
      grid.hidden = false;
    });
  }

  function choosePair() {
    return new Promise(function (resolve) {
      var shownAt = null;
      function finish(side) {
        if (shownAt === null) { return; }
        onKey(null);
        $("pair-left").onclick = $("pair-right").onclick = null;
        resolve({response: side, rt: performance.now() - shownAt});
      }
      $("pair-left").onclick = function () { finish("left"); };
      $("pair-right").onclick = function () { finish("right"); };
      onKey(function (event) {     // up / down for the pairs stacked on a narrow screen
        if (event.key === "ArrowLeft" || event.key === "ArrowUp") { event.preventDefault(); finish("left"); }
        if (event.key === "ArrowRight" || event.key === "ArrowDown") { event.preventDefault(); finish("right"); }
      });
      $("pairs").hidden = false;
      nextFrame().then(function () { shownAt = performance.now(); });
    });
  }

  function runClassification(trial, images) {
    var measured = {ms: null, frames: null};
    $("fixation").hidden = false;
    return new Promise(function (r) { setTimeout(r, config.fixation_ms); }).then(function () {
      $("fixation").hidden = true;
      if (trial.kind === "catch") {
        $("prompt").textContent = trial.prompt;
        $("prompt").hidden = false;
        return chooseLabel(trial.options);
      }
      var img = $("stimulus");
      img.src = images[0].src;
      return img.decode().then(function () {
        return present(img, config.stimulus_ms);
      }).then(function (m) {
        measured = m;
        paintMask();
        return present($("mask"), config.mask_ms);
      }).then(function () { return chooseLabel(trial.options); });
    }).then(function (answer) {
      answer.stimulus_ms = measured.ms;
      answer.frames = measured.frames;
      return answer;
    });
  }

  function runJudgement(trial, images) {
    var sides = [$("pair-left"), $("pair-right")];
    for (var s = 0; s < 2; s++) {
      var slots = sides[s].querySelectorAll("img");
      slots[0].src = images[2 * s].src;
      slots[1].src = images[2 * s + 1].src;
    }
    $("fixation").hidden = false;      // a fixation cross between two judgements marks the new trial
    return new Promise(function (r) { setTimeout(r, config.fixation_ms); }).then(function () {
      $("fixation").hidden = true;
      return choosePair();
    }).then(function (answer) {
      answer.stimulus_ms = null;
      answer.frames = null;
      return answer;
    });
  }

  function showFeedback(feedback) {
    if (!feedback) { return Promise.resolve(); }
    var text = feedback.correct ? "Correct" : "Wrong: it was \u201c" + feedback.answer + "\u201d";
    $("feedback").textContent = text;
    $("feedback").hidden = false;
    return new Promise(function (r) { setTimeout(r, 900); });
  }

  function complete(state) {
    finished = true;
    document.body.setAttribute("data-trial", "done");
    show("screen-done");
    // the server sends the code and the URL only after the last response is stored
    if (state.completion_code) {
      $("completion-code").textContent = state.completion_code;
      $("completion-code-line").hidden = false;
    }
    if (state.completion_url) {
      $("completion-link").href = state.completion_url;
      $("completion").hidden = false;
      // a code the participant must copy (not carried by the URL) stays on screen
      if (!state.completion_code || state.completion_url.indexOf(state.completion_code) >= 0) {
        setTimeout(function () { window.location.href = state.completion_url; }, 3000);
      }
    }
  }

  function loop(token, state) {
    if (state.done) { complete(state); return Promise.resolve(); }
    var trial = state.trial;
    var ready = trial.break_before ? (show("screen-break"), waitForSpaceOrClick($("continue"))) : Promise.resolve();
    return ready.then(function () {
      show("screen-trial");
      resetTrialScreen();
      $("progress").textContent = (state.answered + 1) + " / " + state.total;
      return loadImages(trial.stimuli);
    }).then(function (images) {
      document.body.setAttribute("data-trial", String(trial.id));   // which trial is on screen (for testing)
      return config.task === "classify" ? runClassification(trial, images) : runJudgement(trial, images);
    }).then(function (answer) {
      resetTrialScreen();
      var body = {trial: trial.id, response: answer.response, rt_ms: answer.rt,
                  stimulus_ms: answer.stimulus_ms, frames: answer.frames, refresh_hz: refreshHz,
                  window_w: window.innerWidth, window_h: window.innerHeight};
      return apiRetrying("/api/p/" + token + "/response", body);
    }).then(function (result) {
      if (result.status === 200) {
        return showFeedback(result.payload.feedback).then(function () { return loop(token, result.payload.state); });
      }
      if (result.status === 409) {   // answered already (a retried request that had reached the server)
        return apiRetrying("/api/p/" + token + "/state").then(function (r) { return loop(token, r.payload); });
      }
      fail(result.payload.error || ("the server answered " + result.status));
    });
  }

  function startRun() {
    var token = window.location.pathname.split("/").pop();
    show("screen-loading");
    estimateRefresh().then(function () {
      return apiRetrying("/api/p/" + token + "/state");
    }).then(function (result) {
      if (result.status !== 200) { fail(result.payload.error || "unknown participant"); return; }
      var state = result.payload;
      if (state.done) { complete(state); return; }
      $("resume-note").hidden = state.answered === 0;
      show("screen-instructions");
      return waitForSpaceOrClick($("start")).then(function () { return loop(token, state); });
    }).catch(function (error) { fail(String(error)); });
  }

  function startConsent() {
    $("consent-title").textContent = config.title;     // the texts themselves are in the page (rendered once)
    show("screen-consent");
    $("consent-decline").onclick = function () { show("screen-declined"); };
    $("consent-agree").onclick = function () {
      $("consent-agree").disabled = true;
      enterFullscreen();
      var query = new URLSearchParams(window.location.search);
      var params = {};
      config.platform_params.forEach(function (name) { if (query.get(name)) { params[name] = query.get(name); } });
      apiRetrying("/api/start", {consent: true, params: params}).then(function (result) {
        if (result.status === 410) { show("screen-closed"); return; }   // recruiting stopped meanwhile
        if (result.status !== 200) { fail(result.payload.error || "could not start"); return; }
        // the same page goes on at the participant's own address (a reload resumes there); no navigation,
        // so that fullscreen stays on
        history.replaceState(null, "", result.payload.url);
        config.mode = "run";
        startRun();
      }).catch(function (error) { fail(String(error)); });
    };
  }

  var missing = missingFeatures();
  if (missing.length) {
    $("browser-missing").textContent = missing.join(", ");
    show("screen-browser");
    return;
  }
  if (config.mode === "closed") {   // an adaptive study that stopped recruiting: no consent, no session
    show("screen-closed");
    return;
  }
  whenDeviceFits(config.mode === "start" ? startConsent : startRun);
})();
