package report

import (
	"bytes"
	"html/template"
	"io"

	"github.com/baglab/baglab/analysis"
	"github.com/baglab/baglab/analysis/plot"
)

// Section is one analysis in the page.
type Section struct {
	Kind    string
	Tables  []*analysis.Table
	Figures []template.HTML
}

var page = template.Must(template.New("report").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{{.Title}}</title>
<style>
body{font-family:sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:13px}
th,td{border:1px solid #bbb;padding:3px 6px;text-align:right}
th{background:#eef}
td.s{text-align:left}
figure{display:inline-block;margin:0.5em}
</style></head><body>
<h1>{{.Title}}</h1>
{{range .Sections}}<section id="{{.Kind}}"><h2>{{.Kind}}</h2>
{{range .Tables}}<h3>{{.Name}}</h3><table data-table="{{.Name}}"><thead><tr>{{range .Columns}}<th>{{.Name}}</th>{{end}}</tr></thead><tbody>
{{range .Display}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</tbody></table>
{{end}}{{range .Figures}}<figure>{{.}}</figure>{{end}}
</section>
{{end}}</body></html>
`))

// Render writes the page for results; detail tables (one row per
// observation) are left out. Numbers are shown as in the terminal tables;
// full precision is in `analyze --json` and `--out`.
func Render(w io.Writer, title string, results []analysis.Result) error {
	data := struct {
		Title    string
		Sections []Section
	}{Title: title}
	for _, r := range results {
		s := Section{Kind: r.Kind()}
		for _, t := range r.Tables() {
			if !t.Detail {
				s.Tables = append(s.Tables, t)
			}
		}
		for _, f := range plot.Figures(r) {
			var b bytes.Buffer
			if err := f.WriteTo(&b, "svg"); err != nil {
				return err
			}
			svg := b.Bytes()
			if i := bytes.Index(svg, []byte("<svg")); i > 0 { // drop the XML prolog
				svg = svg[i:]
			}
			s.Figures = append(s.Figures, template.HTML(svg)) // produced by gonum/plot from our numbers
		}
		data.Sections = append(data.Sections, s)
	}
	return page.Execute(w, data)
}
