// duepay dashboard: the only script of its pages (served from our origin; the CSP allows no
// inline script). Everything works without it except what a wallet must sign: sign-in (EIP-4361
// through personal_sign) and the payout wallet proof (EIP-191). Wallets are found as the checkout
// finds them: EIP-6963 announcements first, then window.ethereum.
"use strict";

var providers = [];
window.addEventListener("eip6963:announceProvider", function (ev) {
  if (ev.detail && ev.detail.provider) providers.push(ev.detail.provider);
});
window.dispatchEvent(new Event("eip6963:requestProvider"));

function pickProvider() {
  if (providers.length) return providers[0];
  return window.ethereum || null;
}

function csrfToken() {
  var meta = document.querySelector('meta[name="csrf-token"]');
  return meta ? meta.getAttribute("content") : "";
}

function utf8Hex(text) {
  var bytes = new TextEncoder().encode(text);
  var out = "0x";
  for (var i = 0; i < bytes.length; i++) out += (bytes[i] < 16 ? "0" : "") + bytes[i].toString(16);
  return out;
}

function say(node, text, isError) {
  if (!node) return;
  node.textContent = text;
  node.className = isError ? "status error" : "status";
}

function errorText(e) {
  if (!e) return "error";
  if (e.code === 4001) return "request rejected in the wallet";
  return e.message || String(e);
}

function postJson(url, body) {
  return fetch(url, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", "x-csrf-token": csrfToken() },
    body: JSON.stringify(body)
  }).then(function (r) {
    return r.json().then(function (env) {
      if (!r.ok || !env.success) {
        var err = new Error(env.error || ("HTTP " + r.status));
        err.code = env.meta && env.meta.code;
        throw err;
      }
      return env.data;
    });
  });
}

function firstAccount(provider) {
  return provider.request({ method: "eth_requestAccounts" }).then(function (accounts) {
    if (!accounts || !accounts.length) throw new Error("the wallet shared no account");
    return accounts[0];
  });
}

function signIn(button) {
  var status = document.getElementById("siwe-status");
  var provider = pickProvider();
  if (!provider) { say(status, button.getAttribute("data-no-wallet"), true); return; }
  button.disabled = true;
  var address;
  firstAccount(provider)
    .then(function (a) {
      address = a;
      return provider.request({ method: "eth_chainId" }).catch(function () { return null; });
    })
    .then(function (chainHex) {
      var url = "/auth/siwe/nonce?address=" + encodeURIComponent(address);
      var chain = chainHex ? parseInt(chainHex, 16) : NaN;
      return fetch(url + (isNaN(chain) ? "" : "&chainId=" + chain), { credentials: "same-origin" })
        .then(function (r) {
          // A chain we do not accept: sign for our default chain instead.
          return r.ok ? r : fetch(url, { credentials: "same-origin" });
        })
        .then(function (r) { return r.json(); });
    })
    .then(function (env) {
      if (!env.success) throw new Error(env.error);
      say(status, button.getAttribute("data-signing"), false);
      var message = env.data.message;
      return provider.request({ method: "personal_sign", params: [utf8Hex(message), address] })
        .then(function (signature) {
          return postJson("/auth/siwe", { message: message, signature: signature });
        });
    })
    .then(function (data) { window.location.assign(data.redirect || "/projects"); })
    .catch(function (e) { say(status, errorText(e), true); button.disabled = false; });
}

function verifyWallet(button) {
  var status = document.getElementById("wallet-status");
  var provider = pickProvider();
  if (!provider) { say(status, button.getAttribute("data-no-wallet"), true); return; }
  var project = button.getAttribute("data-project");
  var current = button.getAttribute("data-current");
  var base = "/p/" + encodeURIComponent(project) + "/wallet/";
  button.disabled = true;
  var address, challenge;
  firstAccount(provider)
    .then(function (a) {
      address = a;
      return postJson(base + "challenge", { address: address });
    })
    .then(function (c) {
      challenge = c;
      say(status, button.getAttribute("data-signing"), false);
      return provider.request({ method: "personal_sign", params: [utf8Hex(c.message), address] });
    })
    .then(function (signature) {
      var body = { address: challenge.address, signature: signature, nonce: challenge.nonce };
      if (!challenge.currentWalletSignatureRequired) return body;
      // Replacing a verified wallet: that wallet signs the same message too.
      return provider.request({ method: "personal_sign", params: [utf8Hex(challenge.message), current] })
        .then(function (s) { body.currentWalletSignature = s; return body; });
    })
    .then(function (body) { return postJson(base + "verify", body); })
    .then(function () { window.location.reload(); })
    .catch(function (e) { say(status, errorText(e), true); button.disabled = false; });
}

function copy(button) {
  var target = document.getElementById(button.getAttribute("data-copy"));
  if (!target || !navigator.clipboard) return;
  navigator.clipboard.writeText(target.textContent).then(function () {
    button.textContent = button.getAttribute("data-copied");
  });
}

document.addEventListener("DOMContentLoaded", function () {
  var siwe = document.getElementById("siwe");
  if (siwe) siwe.addEventListener("click", function () { signIn(siwe); });
  var verify = document.getElementById("verify-wallet");
  if (verify) verify.addEventListener("click", function () { verifyWallet(verify); });
  document.querySelectorAll("button[data-copy]").forEach(function (b) {
    b.addEventListener("click", function () { copy(b); });
  });
});

// The charges list updates itself: an EventSource on the region's data-live URL (one answer per
// request, EventSource reconnects with Last-Event-ID); on `changed`, the page is read again and the
// region swapped (the filters and the page stay as they are). One read at a time; a change during
// a read is followed by one more read.
(function liveCharges() {
  var region = document.getElementById("charges-list");
  if (!region || !region.dataset.live || !window.EventSource) return;
  var reading = false;
  var again = false;
  function reread() {
    if (reading) { again = true; return; }
    reading = true;
    fetch(window.location.href, {credentials: "same-origin", headers: {accept: "text/html"}})
      .then(function (res) { return res.ok ? res.text() : null; })
      .then(function (text) {
        if (text === null) return;
        var doc = new DOMParser().parseFromString(text, "text/html");
        var fresh = doc.getElementById("charges-list");
        if (!fresh) return;
        var current = document.getElementById("charges-list");
        var status = fresh.querySelector(".live-status");
        if (status) status.textContent = region.dataset.updated + " " + new Date().toLocaleTimeString();
        current.innerHTML = fresh.innerHTML;
      })
      .catch(function () {})
      .then(function () {
        reading = false;
        if (again) { again = false; reread(); }
      });
  }
  var source = new EventSource(region.dataset.live, {withCredentials: true});
  source.addEventListener("changed", reread);
})();
