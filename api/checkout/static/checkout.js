// duepay hosted checkout: progressive enhancement of the server-rendered page (docs/checkout.md).
// Without this script the transfer rail works and the page refreshes itself; with it: a live
// countdown, copy button, live status by Server-Sent Events (polling when the stream drops), the
// wallet rail (EIP-6963, then window.ethereum) and the redirect to the merchant after payment.
// No third-party code, no inline script (CSP), no Ethereum library: the server sends the calldata.
(function() {
"use strict";
var main = document.getElementById("checkout");
if (!main) return;
var invoiceId = main.getAttribute("data-invoice");
var chainId = Number(main.getAttribute("data-chain-id"));
var clockOffset = Number(main.getAttribute("data-now")) * 1000 - Date.now();
var i18nNode = document.getElementById("dp-i18n");
var t = i18nNode ? JSON.parse(i18nNode.textContent) : {};
// The statuses after which nothing changes: the server's list (domain::charge::final_status).
var FINAL = {};
(main.getAttribute("data-final-statuses") || "").split(" ").forEach(function(s) {
  if (s) FINAL[s] = 1;
});
var lastStatus = main.getAttribute("data-status");
var lastKey = null;
var walletBusy = false;

function $(sel, root) {
  return (root || document).querySelector(sel);
}

// ---- countdown ----------------------------------------------------------------------------
function remaining(seconds) {
  if (seconds <= 0) return "0s";
  var h = Math.floor(seconds / 3600), m = Math.floor((seconds % 3600) / 60), s = seconds % 60;
  var pad = function(n) {
    return (n < 10 ? "0" : "") + n;
  };
  if (h > 0) return h + "h " + pad(m) + "m " + pad(s) + "s";
  if (m > 0) return m + "m " + pad(s) + "s";
  return s + "s";
}
function tick() {
  var el = $("[data-test=countdown]");
  if (!el) return;
  if (FINAL[lastStatus]) {
    el.textContent = "\u2014";
    return;
  }
  var deadline = Number(el.getAttribute("data-deadline"));
  var left = Math.floor(deadline - (Date.now() + clockOffset) / 1000);
  el.textContent = remaining(left);
  if (left <= 0) {
    var btn = $("#pay-wallet");
    if (btn) btn.disabled = true;
  }
}
tick();
setInterval(tick, 1000);

function select(node) {
  var range = document.createRange();
  range.selectNodeContents(node);
  var sel = window.getSelection();
  sel.removeAllRanges();
  sel.addRange(range);
}

// ---- copy ----------------------------------------------------------------------------------
document.addEventListener("click", function(ev) {
  var btn = ev.target.closest ? ev.target.closest("button[data-copy]") : null;
  if (!btn) return;
  var source = document.getElementById(btn.getAttribute("data-copy"));
  if (!source) return;
  var value = source.textContent.trim();
  var done = function() {
    btn.textContent = t.copied || "Copied";
    setTimeout(function() {
      btn.textContent = t.copy || "Copy";
    }, 2000);
  };
  if (navigator.clipboard && navigator.clipboard.writeText) {
    navigator.clipboard.writeText(value).then(done, function() {
      select(source);
    });
  } else {
    select(source);
    try {
      document.execCommand("copy");
      done();
    } catch (e) { /* selected for manual copy */
    }
  }
});

// ---- live status ---------------------------------------------------------------------------
// The server renders every state; on a change the page fetches itself and swaps the live parts
// (status, transaction, transfer rail, return link), so there is one renderer, on the server.
function refresh() {
  return fetch(
             location.pathname + location.search,
             {headers: {accept: "text/html"}, cache: "no-store", credentials: "same-origin"})
      .then(function(r) {
        return r.text();
      })
      .then(function(html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.getElementById("checkout");
        if (!fresh) return;
        var status = fresh.getAttribute("data-status");
        ["status", "tx", "return", "transfer"].forEach(function(id) {
          var cur = document.getElementById(id), next = doc.getElementById(id);
          if (cur && next) cur.replaceWith(document.importNode(next, true));
        });
        var wallet = document.getElementById("wallet"), nextWallet = doc.getElementById("wallet");
        if (wallet && nextWallet && nextWallet.hidden && !walletBusy) {
          wallet.replaceWith(
              document.importNode(nextWallet, true));  // no rail to pay with any more
        }
        main.setAttribute("data-status", status);
        lastStatus = status;
        tick();
        if (status === "paid") redirectSoon();
      });
}

function onEvent(data) {
  var key =
      data.status + "|" + data.amountConfirmed + "|" + data.confirmationsSeen + "|" + data.txHash;
  if (key === lastKey) return;
  var first = lastKey === null;
  lastKey = key;
  if (first && data.status === lastStatus) return;  // the page was rendered from this state
  refresh();
}

var pollTimer = null;
function poll() {
  if (pollTimer) return;
  pollTimer = setInterval(function() {
    fetch("/v1/checkout/" + invoiceId, {cache: "no-store"})
        .then(function(r) {
          return r.json();
        })
        .then(function(body) {
          if (!body || !body.data) return;
          var d = body.data;
          onEvent({
            status: d.status,
            amountConfirmed: d.amountConfirmed,
            confirmationsSeen: d.confirmations.seen,
            txHash: d.txHash
          });
          if (FINAL[d.status]) {
            clearInterval(pollTimer);
          }
        })
        .catch(function() { /* next tick */ });
  }, 3000);
}

// Each SSE response carries at most one event; EventSource reconnects after it (retry: 1000)
// with Last-Event-ID, so an error between two open events is the normal rhythm. Three errors
// without an open in between mean the stream is unreachable: poll the JSON instead.
function listen() {
  if (FINAL[lastStatus]) return;
  if (!window.EventSource) {
    poll();
    return;
  }
  var failures = 0;
  var es = new EventSource("/v1/checkout/" + invoiceId + "/events");
  es.onopen = function() {
    failures = 0;
  };
  es.addEventListener("status", function(ev) {
    var data;
    try {
      data = JSON.parse(ev.data);
    } catch (e) {
      return;
    }
    onEvent(data);
    if (FINAL[data.status]) es.close();
  });
  es.onerror = function() {
    if (FINAL[lastStatus]) {
      es.close();
      return;
    }
    failures += 1;
    if (failures >= 3 || es.readyState === EventSource.CLOSED) {
      es.close();
      poll();
    }
  };
}
listen();

// ---- redirect after paid -------------------------------------------------------------------
var redirecting = false;
function redirectSoon() {
  var tpl = document.getElementById("dp-redirect");
  if (!tpl || redirecting) return;
  var url = tpl.getAttribute("data-url");
  if (!/^https?:\/\//i.test(url)) return;
  redirecting = true;
  var ret = document.getElementById("return");
  if (ret) {
    var note = document.createElement("span");
    note.className = "redirect-note";
    note.textContent = " " + (t.redirecting || "");
    ret.appendChild(note);
  }
  setTimeout(function() {
    location.assign(url);
  }, 3000);
}
if (lastStatus === "paid") redirectSoon();

// ---- wallet rail ---------------------------------------------------------------------------
var payBtn = document.getElementById("pay-wallet");
var providers = [];
window.addEventListener("eip6963:announceProvider", function(ev) {
  if (ev.detail && ev.detail.provider) providers.push(ev.detail);
});
window.dispatchEvent(new Event("eip6963:requestProvider"));

function pickProvider() {
  if (providers.length > 0) return providers[0].provider;
  return window.ethereum || null;
}

function step(name, state) {
  var li = document.querySelector("#wallet-steps [data-step=" + name + "]");
  if (li) li.setAttribute("data-state", state);
}
function resetSteps() {
  ["connect", "network", "approve", "pay"].forEach(function(s) {
    step(s, "todo");
  });
}
function showError(text) {
  var el = document.getElementById("wallet-error");
  if (!el) return;
  el.textContent = text;
  el.hidden = !text;
}
function errorText(e) {
  if (e && (e.code === 4001 || e.code === "ACTION_REJECTED")) return t.rejected || "Rejected";
  if (e && e.reverted) return t.reverted || "Reverted";
  var m = e && (e.message || (e.data && e.data.message));
  return m ? String(m).slice(0, 300) : "Error";
}

function sleep(ms) {
  return new Promise(function(r) {
    setTimeout(r, ms);
  });
}

function waitReceipt(provider, hash) {
  var until = Date.now() + 180000;
  function loop() {
    return provider.request({method: "eth_getTransactionReceipt", params: [hash]})
        .then(function(r) {
          if (r && r.blockNumber) {
            if (r.status !== "0x1") {
              var err = new Error("reverted");
              err.reverted = true;
              throw err;
            }
            return r;
          }
          if (Date.now() > until) throw new Error("no receipt after 3 minutes");
          return sleep(1000).then(loop);
        });
  }
  return loop();
}

function ensureChain(provider, chain) {
  var hex = "0x" + chainId.toString(16);
  return provider.request({method: "eth_chainId"}).then(function(current) {
    if (current && parseInt(current, 16) === chainId) return;
    return provider.request({method: "wallet_switchEthereumChain", params: [{chainId: hex}]})
        .catch(function(e) {
          if (!(e &&
                (e.code === 4902 ||
                 (e.data && e.data.originalError && e.data.originalError.code === 4902))))
            throw e;
          if (!chain.rpcUrl) throw e;
          return provider.request({
            method: "wallet_addEthereumChain",
            params: [{
              chainId: hex,
              chainName: chain.name,
              rpcUrls: [chain.rpcUrl],
              nativeCurrency: {name: "POL", symbol: "POL", decimals: 18},
              blockExplorerUrls: chain.explorerUrl ? [chain.explorerUrl] : undefined
            }]
          });
        });
  });
}

function payWithWallet() {
  var provider = pickProvider();
  showError("");
  if (!provider) {
    showError(t.noWallet || "No wallet");
    return;
  }
  walletBusy = true;
  payBtn.disabled = true;
  resetSteps();
  var account, data, current = "connect";
  fetch("/v1/checkout/" + invoiceId, {cache: "no-store"})
      .then(function(r) {
        return r.json();
      })
      .then(function(body) {
        data = body && body.data;
        if (!data || !data.wallet) {
          var e = new Error(t.expired || "Not payable");
          throw e;
        }
        step("connect", "active");
        return provider.request({method: "eth_requestAccounts"});
      })
      .then(function(accounts) {
        account = accounts && accounts[0];
        if (!account) throw new Error(t.noWallet || "No account");
        step("connect", "done");
        current = "network";
        step("network", "active");
        return ensureChain(provider, data.chain);
      })
      .then(function() {
        step("network", "done");
        current = "approve";
        step("approve", "active");
        var tx = data.wallet.transactions[0];
        return provider.request({
          method: "eth_sendTransaction",
          params: [{from: account, to: tx.to, data: tx.data, value: tx.value}]
        });
      })
      .then(function(hash) {
        return waitReceipt(provider, hash);
      })
      .then(function() {
        step("approve", "done");
        current = "pay";
        step("pay", "active");
        var tx = data.wallet.transactions[1];
        return provider.request({
          method: "eth_sendTransaction",
          params: [{from: account, to: tx.to, data: tx.data, value: tx.value}]
        });
      })
      .then(function(hash) {
        return waitReceipt(provider, hash);
      })
      .then(function() {
        step("pay", "done");
        walletBusy = false;
        refresh();
      })
      .catch(function(e) {
        step(current, "error");
        walletBusy = false;
        showError(errorText(e));
        payBtn.disabled = false;
        payBtn.textContent = t.retry || "Retry";
      });
}

if (payBtn) {
  payBtn.hidden = false;
  payBtn.addEventListener("click", payWithWallet);
}
})();
