// Filters findings by severity, family and text; sorts any table whose
// headers are marked sortable. No network, no libraries.
(function () {
  function applyFilters() {
    var sev = {};
    document.querySelectorAll('input[data-filter-sev]').forEach(function (c) { sev[c.value] = c.checked; });
    var famSel = document.getElementById('fam');
    var fam = famSel ? famSel.value : '';
    var qEl = document.getElementById('q');
    var q = qEl ? qEl.value.toLowerCase() : '';
    var shown = 0;
    document.querySelectorAll('[data-severity]').forEach(function (el) {
      var ok = sev[el.dataset.severity] !== false && (!fam || el.dataset.family === fam) &&
        (!q || el.textContent.toLowerCase().indexOf(q) >= 0);
      el.classList.toggle('hidden', !ok);
      if (ok) shown++;
    });
    var n = document.getElementById('shown');
    if (n) n.textContent = shown;
  }
  document.querySelectorAll('input[data-filter-sev], #fam, #q').forEach(function (el) {
    el.addEventListener('input', applyFilters);
    el.addEventListener('change', applyFilters);
  });
  var sortSel = document.getElementById('sort');
  if (sortSel) sortSel.addEventListener('change', function () {
    var list = document.getElementById('findings');
    var items = Array.prototype.slice.call(list.children);
    var key = sortSel.value;
    items.sort(function (a, b) {
      if (key === 'severity') return (b.dataset.rank - a.dataset.rank) || a.dataset.id.localeCompare(b.dataset.id);
      return a.dataset[key].localeCompare(b.dataset[key]) || (b.dataset.rank - a.dataset.rank);
    });
    items.forEach(function (i) { list.appendChild(i); });
  });
  document.querySelectorAll('th.sortable').forEach(function (th) {
    th.addEventListener('click', function () {
      var table = th.closest('table'), body = table.tBodies[0];
      var idx = Array.prototype.indexOf.call(th.parentNode.children, th);
      var asc = th.dataset.dir !== 'asc';
      th.dataset.dir = asc ? 'asc' : 'desc';
      var rows = Array.prototype.slice.call(body.rows);
      rows.sort(function (a, b) {
        var x = a.cells[idx].dataset.v || a.cells[idx].textContent, y = b.cells[idx].dataset.v || b.cells[idx].textContent;
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = (!isNaN(nx) && !isNaN(ny)) ? nx - ny : x.localeCompare(y);
        return asc ? c : -c;
      });
      rows.forEach(function (r) { body.appendChild(r); });
    });
  });
  // A fragment such as #sev=crit,warn&fam=block&q=sda&sort=family&open=all
  // opens the page filtered, so a link can point at one view; changing the
  // fragment later applies it too.
  function applyHash() {
    var params = {};
    (location.hash || '').replace(/^#/, '').split('&').forEach(function (kv) {
      var i = kv.indexOf('=');
      if (i <= 0) return;
      // A malformed escape (#q=%) is taken as typed, not thrown: one bad
      // link must not stop the filters.
      var v = kv.slice(i + 1);
      try { v = decodeURIComponent(v); } catch (e) { /* keep v */ }
      params[kv.slice(0, i)] = v;
    });
    if (params.sev) {
      var want = params.sev.split(',');
      document.querySelectorAll('input[data-filter-sev]').forEach(function (c) { c.checked = want.indexOf(c.value) >= 0; });
    }
    var famEl = document.getElementById('fam');
    if (params.fam && famEl) famEl.value = params.fam;
    var qEl = document.getElementById('q');
    if (params.q && qEl) qEl.value = params.q;
    if (sortSel) {
      if (params.sort) sortSel.value = params.sort;
      sortSel.dispatchEvent(new Event('change'));
    }
    applyFilters();
    if (params.open === 'all') openAll(true);
  }
  // Expand or collapse every finding; printing opens them all so paper
  // shows the evidence, and restores the view afterwards.
  function openAll(open) {
    document.querySelectorAll('details.finding').forEach(function (d) { d.open = open; });
  }
  var ex = document.getElementById('expand-all'), co = document.getElementById('collapse-all');
  if (ex) ex.addEventListener('click', function () { openAll(true); });
  if (co) co.addEventListener('click', function () { openAll(false); });
  var before = null;
  window.addEventListener('beforeprint', function () {
    before = Array.prototype.map.call(document.querySelectorAll('details'), function (d) { return d.open; });
    document.querySelectorAll('details').forEach(function (d) { d.open = true; });
  });
  window.addEventListener('afterprint', function () {
    if (!before) return;
    document.querySelectorAll('details').forEach(function (d, i) { d.open = before[i]; });
    before = null;
  });
  applyHash();
  window.addEventListener('hashchange', applyHash);
})();
