/* nastune's Cockpit page (docs/cockpit.md).
 *
 * It runs the installed nastune through cockpit.spawn and reads its JSON
 * only: read-only commands with superuser "try" (they work unprivileged,
 * with less detail), changes with superuser "require". Every value shown
 * is inserted as text (textContent, never parsed as HTML): findings carry
 * strings a disk, a share or a peer chose. No framework, no build step,
 * nothing from the network: Cockpit's content security policy allows
 * scripts from this package and ../base1 only.
 */
/* global cockpit */
"use strict";

(function () {
    const NASTUNE = "nastune";
    const BENCH_DIR = "/var/lib/nastune/bench";
    const SEVERITIES = ["crit", "warn", "info"];
    const SEV_NAME = { crit: "critical", warn: "warning", info: "info" };

    /* ---- small DOM helpers: text only ---- */

    function $(id) { return document.getElementById(id); }

    // el builds an element; children are nodes or strings (as text).
    function el(tag, attrs, ...children) {
        const e = document.createElement(tag);
        for (const [k, v] of Object.entries(attrs || {})) {
            if (v === undefined || v === null || v === false)
                continue;
            if (k === "class")
                e.className = v;
            else if (k === "text")
                e.textContent = String(v);
            else
                e.setAttribute(k, String(v));
        }
        for (const c of children) {
            if (c === undefined || c === null)
                continue;
            e.appendChild(typeof c === "string" || typeof c === "number" ? document.createTextNode(String(c)) : c);
        }
        return e;
    }

    function clear(node) {
        while (node.firstChild)
            node.removeChild(node.firstChild);
        return node;
    }

    function table(headers, rows) {
        const t = el("table", {}, el("thead", {}, el("tr", {}, ...headers.map(h => el("th", { text: h })))));
        const body = el("tbody");
        for (const r of rows)
            body.appendChild(el("tr", {}, ...r.map(c => c instanceof Node ? el("td", {}, c) : el("td", { text: c === undefined || c === null ? "" : c, class: typeof c === "number" ? "num" : null }))));
        t.appendChild(body);
        return t;
    }

    function bytes(n) {
        if (typeof n !== "number")
            return "";
        const u = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
        let i = 0;
        while (n >= 1024 && i < u.length - 1) {
            n /= 1024;
            i++;
        }
        return (i === 0 ? n : n.toFixed(1)) + " " + u[i];
    }

    function fixed(n, d) { return typeof n === "number" ? Number(n.toFixed(d === undefined ? 1 : d)) : ""; }

    /* ---- messages ---- */

    function showAlert(text, kind) {
        const a = $("alert");
        a.textContent = text;
        a.className = "alert" + (kind ? " " + kind : "");
        a.hidden = !text;
    }

    // problemText turns a failed spawn into what the user can do.
    function problemText(ex, what) {
        if (ex && (ex.problem === "access-denied" || ex.problem === "not-authorized"))
            return what + " needs administrative access. Turn on administrative access (the \"Limited access\" button at the top of Cockpit) or ask an administrator; your user is not allowed to run nastune as root.";
        if (ex && ex.problem === "not-found")
            return what + ": nastune is not installed on this machine (install the nastune package).";
        if (ex && ex.message)
            return what + ": " + ex.message;
        return what + " failed: " + String(ex);
    }

    /* ---- running nastune ---- */

    // run spawns nastune and resolves with its stdout; stderr becomes the
    // error message. superuser "try" to read and "require" to change.
    function run(args, superuser, opts) {
        const o = Object.assign({ superuser: superuser || "try", err: "message" }, opts || {});
        return cockpit.spawn([NASTUNE].concat(args), o);
    }

    function runJSON(args, superuser) {
        return run(args, superuser).then(out => JSON.parse(out));
    }

    /* ---- tabs ---- */

    const loaders = {};
    const leavers = {};
    let current = null;

    function show(page) {
        if (!loaders[page])
            page = "overview";
        if (current && current !== page && leavers[current])
            leavers[current]();
        for (const b of document.querySelectorAll("#tabs button"))
            b.setAttribute("aria-selected", b.dataset.page === page ? "true" : "false");
        for (const s of document.querySelectorAll("main > .page"))
            s.hidden = s.id !== "page-" + page;
        const first = current !== page;
        current = page;
        if (first)
            loaders[page]();
    }

    /* ---- Overview ---- */

    let audit = null;

    function loadOverview() {
        $("overview-status").textContent = "Auditing this machine…";
        runJSON(["audit", "-o", "json"], "try").then(a => {
            audit = a;
            const at = a.captured && a.captured.at ? new Date(a.captured.at).toLocaleString() : "";
            $("overview-status").textContent = "Captured " + at + (a.host && a.host.hostname ? " on " + a.host.hostname : "");
            renderVerdict(a.summary || {});
            renderFindings();
            renderNotCollected(a.not_collected);
        }).catch(ex => {
            $("overview-status").textContent = "";
            showAlert(problemText(ex, "The audit"));
        });
    }

    function renderVerdict(s) {
        const v = clear($("verdict"));
        const safety = s.safety || "unknown";
        v.appendChild(el("div", { class: "safety " + safety.replace(/[^a-z]+/g, "-"), id: "verdict-safety" }, "Data safety: " + safety));
        if (s.risks && s.risks.length)
            v.appendChild(el("ul", { class: "risks" }, ...s.risks.map(r => el("li", { text: r }))));
        if (s.health)
            v.appendChild(el("p", { text: "Disk health: " + s.health }));
        if (s.limit) {
            const l = s.limit;
            let t = "Limiting path: " + l.path + " (" + l.kind + "), about " + l.ceiling_mb_s + " MB/s, set by " + l.bottleneck;
            if (l.other)
                t += "; the other side, " + l.other + ", allows " + l.other_mb_s + " MB/s";
            if (typeof l.measured_mb_s === "number")
                t += "; measured " + fixed(l.measured_mb_s) + " MB/s on " + l.measured_path;
            v.appendChild(el("p", { text: t + "." }));
            if (l.move)
                v.appendChild(el("p", { class: "muted", text: "To raise it: " + l.move }));
        }
        if (s.actions && s.actions.length) {
            v.appendChild(el("h2", { text: "Do these first" }));
            v.appendChild(el("ol", {}, ...s.actions.map(a => el("li", {},
                el("span", { class: "sev " + a.severity, text: SEV_NAME[a.severity] || a.severity }),
                el("span", { text: a.what }),
                el("div", {}, el("code", { text: a.command }))))));
        }
        const c = s.counts || {};
        for (const sev of SEVERITIES) {
            const n = document.querySelector('[data-count="' + sev + '"]');
            if (n)
                n.textContent = "(" + (c[sev] || 0) + ")";
        }
    }

    function selectedSeverities() {
        const on = new Set();
        for (const cb of document.querySelectorAll("#severity-filter input"))
            if (cb.checked)
                on.add(cb.value);
        return on;
    }

    function renderFindings() {
        const box = clear($("findings"));
        if (!audit)
            return;
        const on = selectedSeverities();
        const list = audit.findings || [];
        if (list.length === 0) {
            box.appendChild(el("p", { class: "muted", text: "No findings: nothing to change on this machine." }));
            return;
        }
        for (const sev of SEVERITIES) {
            const fs = list.filter(f => f.severity === sev);
            if (fs.length === 0 || !on.has(sev))
                continue;
            box.appendChild(el("h2", { text: SEV_NAME[sev] + " (" + fs.length + ")" }));
            for (const f of fs)
                box.appendChild(findingNode(f));
        }
    }

    function findingNode(f) {
        const d = el("details", { class: "finding", "data-severity": f.severity });
        d.appendChild(el("summary", {},
            el("span", { class: "sev " + f.severity, text: SEV_NAME[f.severity] || f.severity }),
            el("span", { class: "subject", text: f.subject }),
            ": ",
            el("span", { class: "title", text: f.title }),
            el("span", { class: "fid", text: f.id })));
        const det = el("div", { class: "detail" });
        if (f.evidence && f.evidence.length) {
            det.appendChild(el("h3", { text: "Evidence" }));
            det.appendChild(el("ul", {}, ...f.evidence.map(e => el("li", {}, el("code", { text: e.source }), ": ", e.value || ""))));
        }
        if (f.why) {
            det.appendChild(el("h3", { text: "Why" }));
            det.appendChild(el("p", { text: f.why }));
        }
        const r = f.recommendation;
        if (r) {
            det.appendChild(el("h3", { text: "Recommendation" }));
            let t = r.target || "";
            if (r.value !== undefined)
                t += " = " + r.value;
            det.appendChild(el("p", { text: t }));
            if (r.basis)
                det.appendChild(el("p", { class: "muted", text: "Basis: " + r.basis }));
        }
        if (f.refs && f.refs.length) {
            det.appendChild(el("h3", { text: "References" }));
            // Links only to http(s) addresses, opened outside Cockpit's frame.
            det.appendChild(el("ul", {}, ...f.refs.map(u => el("li", {}, /^https?:\/\//.test(u)
                ? el("a", { href: u, target: "_blank", rel: "noopener noreferrer", text: u })
                : el("span", { text: u })))));
        }
        d.appendChild(det);
        return d;
    }

    // nc is the audit's not_collected: [{source, reason}] (docs/json.md).
    function renderNotCollected(nc) {
        const box = clear($("not-collected"));
        if (!Array.isArray(nc) || nc.length === 0)
            return;
        box.appendChild(el("h2", { text: "Not collected" }));
        box.appendChild(el("ul", {}, ...nc.map(n => el("li", {}, el("code", { text: n.source }), ": " + (n.reason || "")))));
    }

    /* ---- Disks ---- */

    function loadDisks() {
        $("disks-status").textContent = "Reading disks…";
        runJSON(["inventory", "disks", "-o", "json"], "try").then(inv => {
            $("disks-status").textContent = "";
            renderDisks(inv);
        }).catch(ex => {
            $("disks-status").textContent = "";
            showAlert(problemText(ex, "The disk inventory"));
        });
    }

    function healthNode(h) {
        return el("span", { class: "health-" + (h || "unknown"), text: h || "not reported (no SMART data: smartmontools missing, not root, or the disk has none)" });
    }

    function renderDisks(inv) {
        const box = clear($("disks"));
        const disks = inv.disks || [];
        box.appendChild(el("h2", { text: "Disks (" + disks.length + ")" }));
        box.appendChild(table(["Disk", "Health", "Model", "Serial", "Size", "Type", "Bus", "Temp °C", "Power-on h", "Scheduler", "Read-ahead KiB", "Used by"],
            disks.map(d => [d.name, healthNode(d.health), d.model, d.serial, bytes(d.size_bytes),
                d.rotational === true ? "HDD" : d.rotational === false ? "SSD" : "",
                d.transport + (d.usb_speed_mbps ? " " + d.usb_speed_mbps + " Mbit/s" : ""),
                d.temp_c, d.power_on_hours, d.scheduler, d.read_ahead_kb, (d.use || []).join(", ")])));
        const arrays = inv.arrays || [];
        if (arrays.length) {
            box.appendChild(el("h2", { text: "md arrays" }));
            box.appendChild(table(["Array", "Level", "State", "Disks", "Degraded", "Sync", "Size"],
                arrays.map(a => [a.name, a.level, a.state, a.raid_disks, a.degraded, a.sync_action ? a.sync_action + (a.progress_percent ? " " + a.progress_percent + "%" : "") : "", bytes(a.size_bytes)])));
        }
        const pools = inv.pools || [];
        if (pools.length) {
            box.appendChild(el("h2", { text: "ZFS pools" }));
            box.appendChild(table(["Pool", "Health", "Size"], pools.map(p => [p.name, p.health || p.state, bytes(p.size_bytes)])));
        }
        const fss = inv.filesystems || [];
        if (fss.length) {
            box.appendChild(el("h2", { text: "Filesystems" }));
            box.appendChild(table(["Mount point", "Device", "Type", "On", "Options"],
                fss.map(f => [f.mount_point, f.device, f.type, f.backing, (f.options || []).join(",")])));
        }
    }

    /* ---- Changes ---- */

    let planData = null;

    function loadChanges() {
        loadPlan("");
        loadRuns();
    }

    // loadPlan plans again; the status line says done when it is.
    let planGen = 0;

    function loadPlan(done) {
        $("changes-status").textContent = "Planning…";
        // Only the latest plan is shown: an older one still running (from
        // before an apply or a revert) is dropped when it ends.
        const gen = ++planGen;
        Promise.all([
            runJSON(["plan", "-o", "json"], "try"),
            run(["plan", "-o", "diff"], "try"),
        ]).then(([p, diff]) => {
            if (gen !== planGen)
                return;
            planData = p;
            $("changes-status").textContent = done;
            renderPlan(p);
            $("plan-diff").textContent = diff || "(no file would change)";
        }).catch(ex => {
            if (gen !== planGen)
                return;
            $("changes-status").textContent = done;
            showAlert(problemText(ex, "The plan"));
        });
    }

    function renderPlan(p) {
        const box = clear($("plan"));
        const changes = p.changes || [];
        if (changes.length === 0) {
            box.appendChild(el("p", { class: "muted", text: "Nothing to change: this machine matches the plan." }));
        } else {
            const byFinding = new Map();
            for (const c of changes) {
                if (!byFinding.has(c.finding))
                    byFinding.set(c.finding, []);
                byFinding.get(c.finding).push(c);
            }
            const rows = [];
            for (const [f, cs] of byFinding) {
                for (let i = 0; i < cs.length; i++) {
                    const c = cs[i];
                    const persist = c.persist ? (c.persist.file || "") + (c.persist.line ? ": " + c.persist.line : "") : "";
                    rows.push([
                        i === 0 ? el("input", { type: "checkbox", class: "plan-select", value: f, checked: "checked", "aria-label": "apply " + f }) : "",
                        i === 0 ? f : "", c.kind, c.target, c.from, c.to, persist, (c.needs || []).join("; ")]);
                }
            }
            box.appendChild(table(["", "Finding", "Kind", "Target", "Now", "After", "Persisted in", "Then"], rows));
        }
        $("apply-open").disabled = changes.length === 0;
        const man = clear($("manual"));
        if (p.manual && p.manual.length) {
            man.appendChild(el("h2", { text: "Not changed by apply (do by hand)" }));
            man.appendChild(el("ul", {}, ...p.manual.map(m => el("li", {}, el("code", { text: m.finding }), " " + m.subject + ": " + m.action))));
        }
    }

    function selectedFindings() {
        return Array.from(document.querySelectorAll(".plan-select")).filter(c => c.checked).map(c => c.value);
    }

    // dialog shows a modal with body (a node) and resolves true on OK.
    function dialog(title, body, okText) {
        return new Promise(resolve => {
            $("dialog-title").textContent = title;
            clear($("dialog-body")).appendChild(body);
            $("dialog-ok").textContent = okText;
            $("dialog").hidden = false;
            const done = v => {
                $("dialog").hidden = true;
                $("dialog-ok").onclick = null;
                $("dialog-cancel").onclick = null;
                resolve(v);
            };
            $("dialog-ok").onclick = () => done(true);
            $("dialog-cancel").onclick = () => done(false);
        });
    }

    function openApply() {
        const only = selectedFindings();
        if (only.length === 0) {
            showAlert("Select at least one finding to apply.", "info");
            return;
        }
        const win = $("confirm-window").value;
        const lines = (planData.changes || []).filter(c => only.includes(c.finding)).map(c => c.target + ": " + c.from + " → " + c.to);
        const body = el("div", {},
            el("p", { text: "nastune writes a journal first, then changes:" }),
            el("ul", {}, ...lines.map(l => el("li", { text: l }))),
            el("p", { text: win ? "Unless you press Confirm within " + win + ", nastune reverts these changes on its own (also if this browser loses the connection)." : "Without a confirm window the changes stay until you undo them." }));
        dialog("Apply " + lines.length + (lines.length === 1 ? " change" : " changes"), body, "Apply").then(ok => {
            if (ok)
                doApply(only, win);
        });
    }

    function doApply(only, win) {
        const args = ["apply", "--yes"];
        for (const f of only)
            args.push("--only", f);
        if (win)
            args.push("--confirm", win);
        $("changes-status").textContent = "Applying…";
        showAlert("");
        // The output is collected as it streams: a failed run's promise
        // carries only the error in every Cockpit version.
        let out = "";
        run(args, "require", { err: "out" }).stream(d => { out += d; }).then(() => {
            $("apply-output-card").hidden = false;
            $("apply-output").textContent = out;
            // What was applied leaves the plan: plan again.
            loadPlan("Applied.");
            loadRuns(true);
        }).catch(ex => {
            $("changes-status").textContent = "";
            $("apply-output-card").hidden = !out;
            $("apply-output").textContent = out || "";
            showAlert(problemText(ex, "Apply"));
            loadRuns();
        });
    }

    let countdown = null;

    function stopCountdown() {
        if (countdown)
            window.clearInterval(countdown);
        countdown = null;
        $("confirm-bar").hidden = true;
    }

    // A pending run shows the Confirm button with the seconds left.
    function showPending(r) {
        stopCountdown();
        const deadline = Date.parse(r.confirm.deadline);
        const bar = $("confirm-bar");
        bar.hidden = false;
        bar.dataset.run = r.id;
        const tick = () => {
            const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
            $("confirm-text").textContent = "Run " + r.id + " reverts in " + Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0") + " unless you confirm it.";
            $("confirm-keep").textContent = "Confirm (" + left + " s)";
            if (left === 0) {
                stopCountdown();
                $("changes-status").textContent = "Not confirmed in time: nastune reverts run " + r.id + ".";
                // The watchdog reverts at the deadline; read its result.
                window.setTimeout(() => { loadRuns(); loadChanges(); }, 3000);
            }
        };
        tick();
        countdown = window.setInterval(tick, 1000);
    }

    function confirmRun() {
        const id = $("confirm-bar").dataset.run;
        run(["confirm", id], "require", { err: "out" }).then(() => {
            stopCountdown();
            $("changes-status").textContent = "Run " + id + " confirmed: the changes stay.";
            loadRuns();
        }).catch(ex => showAlert(problemText(ex, "Confirm")));
    }

    // loadRuns reads the recorded runs and shows a pending one's Confirm
    // button; quiet: a failure says nothing (the check at page load).
    function loadRuns(fromApply, quiet) {
        runJSON(["undo", "--list", "-o", "json"], "try").then(runs => {
            renderRuns(runs);
            const pending = runs.filter(r => r.confirm && r.confirm.state === "pending");
            if (pending.length)
                showPending(pending[pending.length - 1]);
            else if (!fromApply || countdown)
                stopCountdown();
        }).catch(ex => {
            if (!quiet)
                showAlert(problemText(ex, "The list of applied runs"));
        });
    }

    function renderRuns(runs) {
        const box = clear($("runs"));
        if (runs.length === 0) {
            box.appendChild(el("p", { class: "muted", text: "No runs recorded." }));
            return;
        }
        box.appendChild(table(["Run", "State", "Started", "Changes", "Confirm", ""],
            runs.slice().reverse().map(r => {
                const undoable = r.state === "complete" || r.state === "in-progress" || r.state === "rollback-incomplete" || r.state === "undo-in-progress";
                const b = undoable ? el("button", { type: "button", class: "undo", "data-run": r.id, text: "Undo" }) : "";
                if (b)
                    b.addEventListener("click", () => undoRun(r));
                return [r.id, r.state, r.started, el("ul", {}, ...r.changes.map(c => el("li", { text: c }))), r.confirm ? r.confirm.text : "", b];
            })));
    }

    function undoRun(r) {
        dialog("Undo run " + r.id, el("div", {}, el("p", { text: "Restore, byte for byte, what this run changed:" }), el("ul", {}, ...r.changes.map(c => el("li", { text: c })))), "Undo").then(ok => {
            if (!ok)
                return;
            run(["undo", r.id], "require", { err: "out" }).then(out => {
                // In the message line: planning again rewrites the status.
                showAlert(out.trim(), "info");
                stopCountdown();
                loadRuns();
                loadChanges();
            }).catch(ex => showAlert(problemText(ex, "Undo")));
        });
    }

    /* ---- Watch ---- */

    let watchProc = null;
    let watchSamples = [];
    const WATCH_KEEP = 120;

    function startWatch() {
        stopWatch();
        watchSamples = [];
        let buf = "";
        $("watch-start").disabled = true;
        $("watch-stop").disabled = false;
        $("watch-status").textContent = "Watching…";
        const proc = run(["watch", "--interval", $("watch-interval").value, "-o", "jsonl"], "try");
        watchProc = proc;
        proc.stream(chunk => {
            buf += chunk;
            let i;
            while ((i = buf.indexOf("\n")) >= 0) {
                const line = buf.slice(0, i);
                buf = buf.slice(i + 1);
                if (line)
                    watchLine(JSON.parse(line));
            }
        }).then(() => {
            $("watch-status").textContent = "Stopped.";
        }).catch(ex => {
            if (watchProc === proc && !(ex && ex.problem === "cancelled"))
                showAlert(problemText(ex, "Watch"));
        }).finally(() => {
            if (watchProc === proc)
                watchProc = null;
            $("watch-start").disabled = false;
            $("watch-stop").disabled = true;
        });
    }

    function stopWatch() {
        if (watchProc) {
            const p = watchProc;
            watchProc = null;
            p.close("cancelled");
            $("watch-status").textContent = "Stopped.";
        }
    }

    function watchLine(l) {
        if (l.type === "sample") {
            watchSamples.push(l.sample);
            if (watchSamples.length > WATCH_KEEP)
                watchSamples.shift();
            $("watch-status").textContent = "Watching: " + watchSamples.length + " samples, t = " + fixed(l.sample.t_s) + " s";
            renderWatchVerdict(l.bottlenecks, "Now (the last samples)");
            renderCharts();
        } else if (l.type === "end") {
            renderWatchVerdict(l.bottlenecks, "Over the whole watch (" + l.samples + " samples)");
        }
    }

    function renderWatchVerdict(bs, when) {
        const box = clear($("watch-verdict"));
        box.appendChild(el("h2", { text: "Bottlenecks — " + when }));
        if (!bs || bs.length === 0) {
            box.appendChild(el("p", { class: "muted", text: "No CPU thread, disk, link or memory near its limit." }));
            return;
        }
        box.appendChild(el("ol", {}, ...bs.map(b => el("li", {},
            el("strong", { text: b.kind + " " + b.subject }), " " + Math.round(100 * b.utilization) + "% of its limit",
            el("div", { text: b.why }),
            el("div", { class: "muted", text: "Next: " + b.next })))));
    }

    const COLORS = ["#0066cc", "#c46100", "#3e8635", "#8476d1", "#c9190b", "#009596"];

    // series: [{name, values}] over watchSamples; draws an SVG line chart.
    function chart(title, unit, series, maxHint) {
        const W = 600, H = 140;
        const NS = "http://www.w3.org/2000/svg";
        let max = maxHint || 0;
        for (const s of series)
            for (const v of s.values)
                if (v > max)
                    max = v;
        if (max <= 0)
            max = 1;
        const svg = document.createElementNS(NS, "svg");
        svg.setAttribute("viewBox", "0 0 " + W + " " + H);
        svg.setAttribute("preserveAspectRatio", "none");
        svg.setAttribute("role", "img");
        svg.setAttribute("aria-label", title);
        const axis = document.createElementNS(NS, "line");
        for (const [k, v] of [["x1", 0], ["y1", H - 1], ["x2", W], ["y2", H - 1], ["stroke", "#888"]])
            axis.setAttribute(k, v);
        svg.appendChild(axis);
        // The x axis spans at least a minute of samples, then grows to WATCH_KEEP.
        const span = Math.max(60, ...series.map(s => s.values.length)) - 1;
        series.forEach((s, i) => {
            const pts = s.values.map((v, j) => {
                const x = j * W / span;
                return x.toFixed(1) + "," + (H - 2 - (H - 4) * v / max).toFixed(1);
            });
            const pl = document.createElementNS(NS, "polyline");
            pl.setAttribute("points", pts.join(" "));
            pl.setAttribute("stroke", COLORS[i % COLORS.length]);
            pl.setAttribute("class", "line-sample");
            svg.appendChild(pl);
        });
        const legend = el("div", { class: "legend" }, ...series.map((s, i) => {
            const last = s.values.length ? s.values[s.values.length - 1] : 0;
            const sw = el("span", { class: "swatch", text: "■ " });
            sw.style.color = COLORS[i % COLORS.length];
            return el("span", {}, sw, s.name + ": " + fixed(last) + " " + unit);
        }));
        return el("div", { class: "card chart" }, el("h2", { text: title + " (max " + fixed(max) + " " + unit + ")" }), svg, legend);
    }

    // names lists, busiest first, the devices seen in the kept samples.
    function names(get) {
        const seen = new Map();
        for (const s of watchSamples)
            for (const d of get(s) || [])
                seen.set(d.name, (seen.get(d.name) || 0) + 1);
        return Array.from(seen.keys()).slice(0, 4);
    }

    function renderCharts() {
        const box = clear($("charts"));
        const S = watchSamples;
        box.appendChild(chart("CPU busy", "%", [{ name: "all CPUs", values: S.map(s => s.cpu.busy_pct) }], 100));
        const disks = names(s => s.disks);
        box.appendChild(chart("Disk busy", "%", disks.map(n => ({ name: n, values: S.map(s => { const d = (s.disks || []).find(x => x.name === n); return d ? d.util_pct : 0 }) })), 100));
        box.appendChild(chart("Disk throughput", "MB/s", disks.map(n => ({ name: n, values: S.map(s => { const d = (s.disks || []).find(x => x.name === n); return d ? (d.read_bytes_per_s + d.write_bytes_per_s) / 1e6 : 0 }) }))));
        const nics = names(s => s.nics);
        box.appendChild(chart("Network", "Mbit/s", nics.map(n => ({ name: n, values: S.map(s => { const d = (s.nics || []).find(x => x.name === n); return d ? (d.rx_bits_per_s + d.tx_bits_per_s) / 1e6 : 0 }) }))));
        box.appendChild(chart("Pressure (stalled)", "%", [
            { name: "cpu some", values: S.map(s => s.psi.cpu_some_pct) },
            { name: "io some", values: S.map(s => s.psi.io_some_pct) },
            { name: "memory some", values: S.map(s => s.psi.memory_some_pct) }], 100));
        box.appendChild(chart("Memory available", "MiB", [{ name: "available", values: S.map(s => s.memory.available_bytes / 1048576) }]));
    }

    /* ---- Bench ---- */

    let benchProc = null;

    function stamp() {
        return new Date().toISOString().replace(/[-:]/g, "").replace(/\..*/, "").replace("T", "-");
    }

    // benchRun runs nastune bench KIND: flags first, then "--" and the
    // positional values (a server, a share) the user typed, so that one
    // starting with "-" is a host name, never a flag (-s would start a
    // server as root).
    function benchRun(kind, flags, positional, expectSeconds, environ) {
        if (benchProc) {
            showAlert("A benchmark is already running.", "info");
            return;
        }
        benchProc = { close() {} }; // until the process runs
        const save = BENCH_DIR + "/" + kind + "-" + stamp() + ".json";
        const started = Date.now();
        $("bench-progress").hidden = false;
        $("bench-result").hidden = true;
        const bar = $("bench-progress-bar");
        const tick = () => {
            const s = (Date.now() - started) / 1000;
            bar.value = Math.min(99, 100 * s / expectSeconds);
            $("bench-progress-text").textContent = "bench " + kind + ": " + Math.round(s) + " s of about " + expectSeconds + " s ";
        };
        tick();
        const timer = window.setInterval(tick, 500);
        // The result is saved for compare and for the audit's --bench;
        // without the right to write there it is only shown.
        const p = cockpit.spawn(["mkdir", "-p", BENCH_DIR], { superuser: "try", err: "message" })
            .then(() => save, () => null)
            .then(to => {
                benchProc = run(["bench", kind].concat(flags, ["-o", "json"], to ? ["--save", to] : [], positional.length ? ["--"].concat(positional) : []), "try", environ ? { environ } : {});
                return benchProc.then(out => [out, to]);
            });
        p.then(([out, to]) => {
            renderBench(kind, JSON.parse(out), to);
            loadSaved();
        }).catch(ex => {
            if (!(ex && ex.problem === "cancelled"))
                showAlert(problemText(ex, "bench " + kind));
        }).finally(() => {
            window.clearInterval(timer);
            benchProc = null;
            $("bench-progress").hidden = true;
        });
    }

    function renderBench(kind, r, save) {
        const box = clear($("bench-result"));
        box.hidden = false;
        box.appendChild(el("h2", { text: "bench " + kind + (save ? " — saved as " + save : " — not saved (" + BENCH_DIR + " is not writable without administrative access)") }));
        const tests = r.tests || [];
        // Known columns get their unit; any other number is shown by its JSON name.
        const known = { mib_per_s: "MiB/s", mbit_per_s: "Mbit/s", bits_per_s: "bit/s", iops: "IOPS", seconds: "seconds", bytes: "bytes moved" };
        const keys = [];
        for (const t of tests)
            for (const k of Object.keys(t))
                if (k !== "name" && typeof t[k] === "number" && !keys.includes(k))
                    keys.push(k);
        const cell = (k, v) => k === "bytes" ? bytes(v) : fixed(v);
        box.appendChild(table(["Test"].concat(keys.map(k => known[k] || k), ["latency p50 µs", "p99 µs"]),
            tests.map(t => [t.name].concat(keys.map(k => cell(k, t[k])), [t.lat_us ? t.lat_us.p50 : "", t.lat_us ? t.lat_us.p99 : ""]))));
        const facts = ["host", "device", "engine", "file", "server", "url", "date"].filter(k => typeof r[k] === "string");
        box.appendChild(el("p", { class: "muted", text: facts.map(k => k + ": " + r[k]).join(" · ") }));
    }

    function formValues(f) {
        const v = {};
        for (const e of f.elements)
            if (e.name)
                v[e.name] = e.type === "checkbox" ? e.checked : e.value.trim();
        return v;
    }

    function seconds(s, d) {
        const n = parseFloat(s);
        return isFinite(n) && n > 0 ? n : d;
    }

    function loadSaved() {
        cockpit.spawn(["find", BENCH_DIR, "-maxdepth", "1", "-name", "*.json", "-type", "f"], { superuser: "try", err: "ignore" }).then(out => {
            fillSaved(out.split("\n").filter(Boolean).sort());
        }).catch(() => fillSaved([]));
    }

    function fillSaved(files) {
        for (const id of ["compare-a", "compare-b"]) {
            const s = clear($(id));
            for (const f of files)
                s.appendChild(el("option", { value: f, text: f.slice(BENCH_DIR.length + 1) }));
        }
        if (files.length > 1)
            $("compare-b").selectedIndex = files.length - 1;
        $("compare-run").disabled = files.length < 2;
    }

    function compare() {
        const a = $("compare-a").value, b = $("compare-b").value;
        runJSON(["bench", "compare", a, b, "-o", "json"], "try").then(rows => {
            const box = clear($("compare-result"));
            box.appendChild(table(["Test", "Unit", "Before", "After", "Change %", "Verdict", "Note"],
                rows.map(r => [r.test, r.unit, fixed(r.before), fixed(r.after), fixed(r.change_percent), r.verdict, r.note])));
        }).catch(ex => showAlert(problemText(ex, "bench compare")));
    }

    function loadBench() {
        loadSaved();
    }

    /* ---- wiring ---- */

    loaders.overview = loadOverview;
    loaders.disks = loadDisks;
    loaders.changes = loadChanges;
    loaders.watch = () => {};
    loaders.bench = loadBench;
    leavers.watch = stopWatch;

    document.addEventListener("DOMContentLoaded", () => {
        for (const b of document.querySelectorAll("#tabs button"))
            b.addEventListener("click", () => {
                showAlert("");
                cockpit.location.go([b.dataset.page]);
            });
        cockpit.addEventListener("locationchanged", () => show(cockpit.location.path[0]));
        // Another Cockpit page in front: a running watch ends (its samples stay).
        cockpit.addEventListener("visibilitychange", () => {
            if (cockpit.hidden)
                stopWatch();
        });
        $("overview-refresh").addEventListener("click", loadOverview);
        for (const cb of document.querySelectorAll("#severity-filter input"))
            cb.addEventListener("change", renderFindings);
        $("disks-refresh").addEventListener("click", loadDisks);
        $("changes-refresh").addEventListener("click", loadChanges);
        $("apply-open").addEventListener("click", openApply);
        $("confirm-keep").addEventListener("click", confirmRun);
        $("watch-start").addEventListener("click", startWatch);
        $("watch-stop").addEventListener("click", stopWatch);
        $("compare-run").addEventListener("click", compare);
        $("bench-cancel").addEventListener("click", () => { if (benchProc) benchProc.close("cancelled"); });
        $("bench-disk").addEventListener("submit", ev => {
            ev.preventDefault();
            const v = formValues(ev.target);
            const rt = seconds(v.runtime, 10);
            benchRun("disk", ["--file=" + v.file, "--size=" + v.size, "--runtime=" + rt], [], Math.round(7 * rt + 10));
        });
        $("bench-net").addEventListener("submit", ev => {
            ev.preventDefault();
            const v = formValues(ev.target);
            const t = seconds(v.time, 10);
            benchRun("net", ["--time=" + t].concat(v.reverse ? ["--reverse"] : []), [v.host], Math.round(t + 2));
        });
        $("bench-share").addEventListener("submit", ev => {
            ev.preventDefault();
            const v = formValues(ev.target);
            const t = seconds(v.time, 10);
            // The password goes through the environment, never the command line.
            benchRun("share", ["--size=" + v.size, "--time=" + t], [v.url], Math.round(2 * t + 10), v.password ? ["NASTUNE_SMB_PASSWORD=" + v.password] : null);
        });
        show(cockpit.location.path[0] || "overview");
        // A run applied with --confirm and still waiting (the page was
        // reloaded, or opened in another tab): its Confirm button shows
        // whatever page is in front.
        if (current !== "changes")
            loadRuns(false, true);
        document.body.setAttribute("data-ready", "1");
    });
}());
