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
    if (keyHandler && !event.repeat) { keyHandler(event); }
  });

  function waitForSpaceOrClick(button) {
    return new Promise(function (resolve) {
      function done() { onKey(null); button.onclick = null; resolve(); }
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
      onKey(function (event) {
        if (event.key === "ArrowLeft") { finish("left"); }
        if (event.key === "ArrowRight") { finish("right"); }
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
      $("instructions-text").textContent = config.instructions;
      $("resume-note").hidden = state.answered === 0;
      show("screen-instructions");
      return waitForSpaceOrClick($("start")).then(function () { return loop(token, state); });
    }).catch(function (error) { fail(String(error)); });
  }

  function startConsent() {
    $("consent-title").textContent = config.title;
    $("consent-text").textContent = config.consent_text;
    show("screen-consent");
    $("consent-decline").onclick = function () { show("screen-declined"); };
    $("consent-agree").onclick = function () {
      $("consent-agree").disabled = true;
      var query = new URLSearchParams(window.location.search);
      var params = {};
      config.platform_params.forEach(function (name) { if (query.get(name)) { params[name] = query.get(name); } });
      apiRetrying("/api/start", {consent: true, params: params}).then(function (result) {
        if (result.status !== 200) { fail(result.payload.error || "could not start"); return; }
        window.location.replace(result.payload.url);
      }).catch(function (error) { fail(String(error)); });
    };
  }

  if (config.mode === "start") { startConsent(); } else { startRun(); }
})();
