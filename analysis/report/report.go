package report

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/kinds"
	"github.com/baglab/baglab/analysis/plot"
)

// ErrNothing is returned by Render when no result has data: the page it
// wrote says so.
var ErrNothing = errors.New("report: no analysis found data")

// collapseRows is the row count above which a table starts collapsed.
const collapseRows = 20

// Page is what a report shows.
type Page struct {
	// Title is the page title; when empty, "baglab report: " and the base
	// names of the Provenance's inputs.
	Title string
	// Provenance is shown first; nil leaves it out.
	Provenance *Provenance
	// Results are the analyses run; those without data are only named.
	Results []analysis.Result
	// Pictures are shown in a section of their own (media), inlined as PNG
	// data; PicturesLeftOut counts those left out to keep the page small.
	Pictures        []Picture
	PicturesLeftOut int
}

// Picture is a small PNG picture the page shows with its caption: a grasp
// demonstration's image, a grasp model's cloud from above.
type Picture struct {
	Caption       string
	PNG           []byte
	Width, Height int
}

// picture is a Picture as the page inlines it.
type picture struct {
	Caption       string
	Src           template.URL
	Width, Height int
}

// section is one analysis in the page.
type section struct {
	Kind     string
	Summary  string
	Warnings []string
	Tables   []table
	Figures  []figure
}

type table struct {
	Number    int
	Name      string
	Caption   string
	RowCount  string
	Collapsed bool
	Head      []cell
	Rows      [][]cell
}

// cell is one table cell: its text, its alignment class and, for numbers
// and times, the full value the sort uses.
type cell struct {
	Text, Class, Value string
}

type figure struct {
	Number  int
	Name    string
	Caption string
	SVG     template.HTML
}

type inputRow struct {
	analysis.Input
	Start, End, Duration string
}

var page = sync.OnceValue(func() *template.Template { // parsed on first use, not at every start of baglab
	return template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
<style>
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI","Liberation Sans",Arial,sans-serif;margin:0;color:#1d1d1f;background:#fff;line-height:1.4}
main{max-width:1500px;margin:0 auto;padding:16px 28px 48px}
h1{font-size:1.6em;margin:.4em 0}
h2{font-size:1.3em;margin:1.6em 0 .4em;border-bottom:1px solid #ccd;padding-bottom:.2em}
nav a{margin-right:1em}
.summary{margin:.3em 0 .8em}
.warning{color:#8a4b00}
pre.cmd{white-space:pre-wrap;overflow-wrap:anywhere;background:#f4f5f8;padding:.5em .8em;border-radius:4px;font-size:13px}
dl.meta{display:grid;grid-template-columns:max-content minmax(0,1fr);gap:.2em 1em;margin:.5em 0}
dl.meta dt{font-weight:600}
dl.meta dd{margin:0;overflow-wrap:anywhere}
.scroll{max-width:100%;overflow-x:auto}
table.data{border-collapse:collapse;margin:.3em 0 1.2em;font-size:13px;font-variant-numeric:tabular-nums}
figure.table{margin:.3em 0 1.4em}
figure.table>figcaption{font-size:14px;max-width:none;margin:0 0 .4em}
table.data th,table.data td{border:1px solid #c8c8d0;padding:3px 7px;vertical-align:top}
table.data th{background:#eef0f7;cursor:pointer;user-select:none;white-space:nowrap}
table.data th[data-dir=asc]::after{content:" \25B2"}
table.data th[data-dir=desc]::after{content:" \25BC"}
table.data tbody tr:nth-child(even){background:#fafafc}
.num{text-align:right;white-space:nowrap}
.txt{text-align:left}
.time{text-align:left;white-space:nowrap}
td.path{min-width:12em;overflow-wrap:anywhere}
td.hash{font-family:ui-monospace,"Liberation Mono",monospace;font-size:12px;width:calc(32ch + 16px);min-width:calc(32ch + 16px);overflow-wrap:anywhere}
td.range{white-space:normal;min-width:13em}
details{margin:0}
details>summary{cursor:pointer;font-size:14px;padding:.2em 0}
.figures{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(100%,560px),1fr));gap:24px 28px;align-items:start}
figure{margin:0;min-width:0;max-width:100%}
.figures svg{display:block;width:100%;max-width:820px;height:auto}
figcaption{font-size:13px;max-width:48em;margin-top:.3em}
.absent{color:#555;font-style:italic}
.pictures{display:grid;grid-template-columns:repeat(auto-fill,minmax(200px,1fr));gap:18px}
.pictures img{display:block;image-rendering:pixelated;border:1px solid #ccd;max-width:100%;height:auto}
</style></head><body><main>
<h1>{{.Title}}</h1>
{{with .Prov}}<section id="provenance"><h2>Provenance</h2>
<dl class="meta">
<dt>Made by</dt><dd>baglab {{.Version}} ({{.GoVersion}})</dd>
<dt>Made at</dt><dd class="time">{{$.Created}}</dd>
<dt>Command line</dt><dd><pre class="cmd">{{.CommandLine}}</pre></dd>
</dl>
<figure class="table"><figcaption>Inputs: size in bytes, SHA-256 of the file (for a folder, of its sha256sum listing), first and last log time (UTC), duration (s) and message count.</figcaption>
<div class="scroll"><table class="data" id="inputs">
<thead><tr><th class="txt">path</th><th class="txt">format</th><th class="num">size (bytes)</th><th class="txt">sha256</th><th class="time">log times (UTC)</th><th class="num">duration (s)</th><th class="num">messages</th></tr></thead><tbody>
{{range $.InputRows}}<tr><td class="txt path">{{.Path}}</td><td class="txt">{{.Format}}</td><td class="num" data-v="{{.Size}}">{{.Size}}</td><td class="txt hash">{{.SHA256}}</td><td class="time range" data-v="{{.StartNs}}">{{.Start}} – {{.End}}</td><td class="num" data-v="{{.Duration}}">{{.Duration}}</td><td class="num" data-v="{{.MessageCount}}">{{.MessageCount}}</td></tr>
{{range .Files}}<tr><td class="txt path">&nbsp;&nbsp;{{.Path}}</td><td class="txt"></td><td class="num" data-v="{{.Size}}">{{.Size}}</td><td class="txt hash">{{.SHA256}}</td><td class="time"></td><td class="num"></td><td class="num"></td></tr>
{{end}}{{end}}</tbody></table></div></figure>
{{if .Options}}<figure class="table"><figcaption>Options: those that change the numbers of this report (at their defaults too) and the others given on the command line; "default" marks those not given.</figcaption><div class="scroll"><table class="data" id="options">
<thead><tr><th class="txt">option</th><th class="txt">value</th><th class="txt">given</th><th class="txt">changes results</th></tr></thead><tbody>
{{range .Options}}<tr><td class="txt">--{{.Name}}</td><td class="txt">{{.Value}}</td><td class="txt">{{if .Default}}default{{else}}yes{{end}}</td><td class="txt">{{if .Results}}yes{{else}}no{{end}}</td></tr>
{{end}}</tbody></table></div></figure>{{end}}
</section>{{end}}
{{if .Sections}}<nav>{{range .Sections}}<a href="#{{.Kind}}">{{.Kind}}</a>{{end}}{{if .Pictures}}<a href="#media">media</a>{{end}}</nav>{{end}}
{{if not .Sections}}<section id="nothing"><h2>Nothing to report</h2>
<p>No analysis found data in the inputs{{if .Absent}} ({{range $i, $k := .Absent}}{{if $i}}, {{end}}{{$k}}{{end}} found nothing){{end}}: no table or figure to show.</p></section>{{end}}
{{range .Sections}}<section id="{{.Kind}}"><h2>{{.Kind}}</h2>
{{if .Summary}}<p class="summary">{{.Summary}}</p>{{end}}
{{range .Warnings}}<p class="warning">warning: {{.}}</p>{{end}}
{{range .Tables}}<figure class="table" id="table-{{.Name}}"><figcaption>Table {{.Number}}. <b>{{.Name}}</b> ({{.RowCount}}). {{.Caption}}</figcaption>
{{if .Collapsed}}<details><summary>Table {{.Number}}. {{.Name}}: {{.RowCount}} (click to show)</summary>{{end}}
<div class="scroll"><table class="data" data-table="{{.Name}}">
<thead><tr>{{range .Head}}<th class="{{.Class}}">{{.Text}}</th>{{end}}</tr></thead><tbody>
{{range .Rows}}<tr>{{range .}}<td class="{{.Class}}"{{if .Value}} data-v="{{.Value}}"{{end}}>{{.Text}}</td>{{end}}</tr>
{{end}}</tbody></table></div>{{if .Collapsed}}</details>{{end}}</figure>
{{end}}{{if .Figures}}<div class="figures">{{range .Figures}}<figure id="figure-{{.Name}}">{{.SVG}}<figcaption>Figure {{.Number}}. {{.Caption}}</figcaption></figure>
{{end}}</div>{{end}}
</section>
{{end}}{{if .Pictures}}<section id="media"><h2>media</h2>
<p class="summary">The images and clouds of the recordings{{if .LeftOut}}; {{.LeftOut}} more left out to keep the page within --max-media-bytes{{end}} (baglab media writes them all in full).</p>
<div class="pictures">{{range .Pictures}}<figure><img src="{{.Src}}" width="{{.Width}}" height="{{.Height}}" alt="{{.Caption}}"><figcaption>{{.Caption}}</figcaption></figure>
{{end}}</div></section>
{{end}}{{if and .Sections .Absent}}<p class="absent">No data for {{range $i, $k := .Absent}}{{if $i}}, {{end}}{{$k}}{{end}}.</p>{{end}}
<p class="absent">Tables of one row per observation are left out; <code>baglab analyze --out DIR</code> writes every table in full precision as Parquet and CSV. Click a column header to sort.</p>
</main>
<script>
document.querySelectorAll("table.data").forEach(function (t) {
  t.tHead.querySelectorAll("th").forEach(function (th) {
    th.addEventListener("click", function () {
      var i = th.cellIndex, num = !th.classList.contains("txt"), up = th.dataset.dir !== "asc";
      t.tHead.querySelectorAll("th").forEach(function (h) { delete h.dataset.dir; });
      th.dataset.dir = up ? "asc" : "desc";
      var key = function (r) { var c = r.cells[i]; if (!num) return c.textContent; var v = parseFloat(c.dataset.v); return isNaN(v) ? Infinity : v; };
      var rows = Array.prototype.slice.call(t.tBodies[0].rows);
      rows.sort(function (a, b) { var x = key(a), y = key(b), d = num ? (x === y ? 0 : x < y ? -1 : 1) : x.localeCompare(y); return up ? d : -d; });
      rows.forEach(function (r) { t.tBodies[0].appendChild(r); });
    });
  });
});
</script>
</body></html>
`))
})

// Render writes the page: the provenance, then for each result with data
// its summary, its tables (per-observation ones left out; long ones
// collapsed) and its figures inlined as SVG, every table and figure
// numbered and captioned. When no result has data the page says so and
// Render returns ErrNothing.
func Render(w io.Writer, pg Page) error {
	data := struct {
		Title     string
		Prov      *Provenance
		Created   string
		InputRows []inputRow
		Sections  []section
		Absent    []string
		Pictures  []picture
		LeftOut   int
	}{Title: pg.Title, Prov: pg.Provenance, LeftOut: pg.PicturesLeftOut}
	for _, p := range pg.Pictures {
		// our own PNG bytes, base64: a data URL the page needs no file for
		src := template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(p.PNG))
		data.Pictures = append(data.Pictures, picture{Caption: p.Caption, Src: src, Width: p.Width, Height: p.Height})
	}
	if p := pg.Provenance; p != nil && data.Title == "" {
		names := make([]string, len(p.Inputs))
		for i, in := range p.Inputs {
			names[i] = filepath.Base(in.Path)
		}
		data.Title = "baglab report: " + strings.Join(names, ", ")
	}
	var fo plot.Options
	if p := pg.Provenance; p != nil {
		data.Created = p.Created.UTC().Format(time.RFC3339)
		fo.StartNs = p.StartNs()
		for _, in := range p.Inputs {
			row := inputRow{Input: in}
			if in.MessageCount > 0 {
				row.Start, row.End = rfc3339(in.StartNs), rfc3339(in.EndNs)
				row.Duration = strconv.FormatFloat(float64(in.EndNs-in.StartNs)/1e9, 'f', 3, 64)
			}
			data.InputRows = append(data.InputRows, row)
		}
	}
	tables, figures := 0, 0
	for _, r := range pg.Results {
		if !analysis.HasData(r) {
			data.Absent = append(data.Absent, r.Kind())
			continue
		}
		s := section{Kind: r.Kind(), Summary: r.Summary(), Warnings: r.Warnings()}
		for _, t := range r.Tables() {
			if err := t.Err(); err != nil {
				return err
			}
			if t.Detail || len(t.Rows) == 0 {
				continue
			}
			tables++
			s.Tables = append(s.Tables, tableOf(t, tables))
		}
		for _, f := range kinds.Figures([]analysis.Result{r}, fo) {
			var b bytes.Buffer
			if err := f.Render(&b, "svg", 0); err != nil {
				return fmt.Errorf("report: figure %s: %w", f.Name, err)
			}
			svg := b.Bytes()
			if i := bytes.Index(svg, []byte("<svg")); i > 0 { // drop the XML prolog
				svg = svg[i:]
			}
			figures++
			// gonum/plot writes the SVG from our numbers and escapes text.
			s.Figures = append(s.Figures, figure{Number: figures, Name: f.Name, Caption: f.Caption, SVG: template.HTML(svg)})
		}
		data.Sections = append(data.Sections, s)
	}
	if err := page().Execute(w, data); err != nil {
		return err
	}
	if len(data.Sections) == 0 {
		return ErrNothing
	}
	return nil
}

// tableOf lays out t for the page: cells as the terminal shows them,
// numbers right-aligned with their full value for sorting, text and times
// left-aligned.
func tableOf(t *analysis.Table, number int) table {
	out := table{Number: number, Name: t.Name, Caption: t.Caption, RowCount: t.RowCount(), Collapsed: len(t.Rows) > collapseRows}
	cols := t.Shown(false)
	if len(cols) < len(t.Columns) {
		out.Caption += fmt.Sprintf(" %d of the %d columns are shown; baglab analyze --out writes them all.", len(cols), len(t.Columns))
	}
	class := make([]string, len(cols))
	for j, i := range cols {
		c := t.Columns[i]
		switch {
		case c.IsTime():
			class[j] = "time"
		case c.Numeric():
			class[j] = "num"
		default:
			class[j] = "txt"
		}
		out.Head = append(out.Head, cell{Text: c.Header(), Class: class[j]})
	}
	for ri, row := range t.Cells(cols) {
		cells := make([]cell, len(row))
		for j, text := range row {
			cells[j] = cell{Text: text, Class: class[j]}
			if class[j] != "txt" && cols[j] < len(t.Rows[ri]) {
				cells[j].Value = analysis.FormatCell(t.Rows[ri][cols[j]])
			}
		}
		out.Rows = append(out.Rows, cells)
	}
	return out
}

func rfc3339(ns int64) string {
	return time.Unix(0, ns).UTC().Format("2006-01-02T15:04:05.000Z07:00")
}
