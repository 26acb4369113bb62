package export

import (
	"context"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/baglab/baglab/internal/parallel"
)

// leafColumn is one Parquet leaf column of a record column: the leaf
// values to write and their definition and repetition levels, as
// pqarrow's own path builder works them out for arrays without nulls but
// in nullable leaves (nil levels when the column has none of that kind).
type leafColumn struct {
	name       string      // the leaf's dotted path, for errors
	values     arrow.Array // the leaf values written, in order (a slice the caller releases)
	def, rep   []int16
	first, end int  // values is the leaf array's [first, end)
	nullable   bool // the leaf field is nullable
}

// listStep is one list on the path from a record column to a leaf.
type listStep struct {
	arr        arrow.Array // a *array.List or *array.FixedSizeList
	rep        int16       // the repetition level of its second and later elements
	defIfEmpty int16       // the definition level of an empty list
}

// leafPath is the path from a record column to one leaf.
type leafPath struct {
	col    int // the record column
	name   string
	leaf   arrow.Array
	lists  []listStep
	maxDef int16
	// nullable is the leaf field's own nullability; a null leaf value is
	// defined up to maxDef-1.
	nullable bool
}

// leafColumns returns the leaf columns of the record columns cols (of
// the storage schema sc) in Parquet's column order (depth first), their
// levels worked out on up to jobs goroutines, once for the leaves that
// share their lists. Nulls are supported in nullable leaves only (the
// fields marked msgdef.Field.Nullable): the row builder leaves partial
// rows out before a record is written, so a null elsewhere is an error,
// never a silent change.
func leafColumns(sc *arrow.Schema, cols []arrow.Array, jobs int) ([]leafColumn, error) {
	var paths []leafPath
	for i, c := range cols {
		f := sc.Field(i)
		if err := visitLeaves(leafPath{col: i, name: f.Name}, c, f.Nullable, &paths); err != nil {
			return nil, err
		}
	}
	// Leaves under the same lists with the same definition level (the
	// members of a message in an array) have the same levels.
	same := make([]int, len(paths))
	var firsts []int
	for i := range paths {
		same[i] = i
		for _, j := range firsts {
			if paths[j].sameLevels(&paths[i]) {
				same[i] = j
				break
			}
		}
		if same[i] == i {
			firsts = append(firsts, i)
		}
	}
	out := make([]leafColumn, len(paths))
	_ = parallel.For(context.Background(), len(firsts), jobs, func(_ context.Context, k int) error {
		i := firsts[k]
		out[i] = paths[i].levels(cols[paths[i].col].Len())
		return nil
	})
	for i, p := range paths {
		if j := same[i]; j != i {
			out[i] = out[j]
		}
		out[i].name, out[i].nullable = p.name, p.nullable
		out[i].values = array.NewSlice(p.leaf, int64(out[i].first), int64(out[i].end))
	}
	return out, nil
}

// sameLevels reports whether q's levels are p's: the same record column,
// lists and definition level, and no null leaf values.
func (p *leafPath) sameLevels(q *leafPath) bool {
	if p.col != q.col || p.maxDef != q.maxDef || len(p.lists) != len(q.lists) || p.leaf.NullN() > 0 || q.leaf.NullN() > 0 {
		return false
	}
	for i := range p.lists {
		if p.lists[i].arr != q.lists[i].arr {
			return false
		}
	}
	return true
}

// visitLeaves adds the paths of arr's leaves to out. The levels follow the
// Parquet schema pqarrow makes of the type: a nullable node adds a
// definition level, a list (variable or fixed size) a definition and a
// repetition level; an empty list is defined up to its parent. (Arrow has
// no empty fixed-size list type.)
func visitLeaves(p leafPath, arr arrow.Array, nullable bool, out *[]leafPath) error {
	if arr.NullN() > 0 && !(nullable && isLeaf(arr)) {
		return fmt.Errorf("export: parquet: column %s: %d null values (not written by this exporter)", p.name, arr.NullN())
	}
	if nullable {
		p.maxDef++
	}
	switch a := arr.(type) {
	case *array.Struct:
		st := a.DataType().(*arrow.StructType)
		for i, f := range st.Fields() {
			q := p
			q.name = p.name + "." + f.Name
			if err := visitLeaves(q, a.Field(i), f.Nullable, out); err != nil {
				return err
			}
		}
		return nil
	case *array.List, *array.FixedSizeList:
		p.maxDef++
		step := listStep{arr: arr, rep: int16(len(p.lists) + 1), defIfEmpty: p.maxDef - 1}
		p.lists = append(p.lists[:len(p.lists):len(p.lists)], step)
		elem := arr.DataType().(arrow.ListLikeType).ElemField()
		p.name += "[]"
		return visitLeaves(p, arr.(array.ListLike).ListValues(), elem.Nullable, out)
	case array.ExtensionArray, *array.Dictionary, *array.Map, *array.LargeList:
		return fmt.Errorf("export: parquet: column %s: type %s not supported", p.name, arr.DataType())
	}
	p.leaf, p.nullable = arr, nullable
	*out = append(*out, p)
	return nil
}

// isLeaf reports whether arr is a leaf column's array: neither a struct
// nor a list.
func isLeaf(arr arrow.Array) bool {
	switch arr.(type) {
	case *array.Struct, *array.List, *array.FixedSizeList, *array.LargeList, *array.Map:
		return false
	}
	return true
}

// levels works out the levels of p for a record column of n rows, and
// the range of leaf values they visit.
func (p *leafPath) levels(n int) leafColumn {
	if len(p.lists) == 0 {
		c := leafColumn{end: p.leaf.Len()}
		if p.maxDef > 0 {
			c.def = make([]int16, n)
			for i := range c.def {
				c.def[i] = p.def(i)
			}
		}
		return c
	}
	// one level pair per leaf value or empty list: at least one per row
	// and one per leaf value, more only for empty inner lists
	size := max(n, p.leaf.Len())
	w := levelWriter{p: p, first: -1, def: make([]int16, 0, size), rep: make([]int16, 0, size)}
	w.walk(0, 0, n, 0)
	if w.first < 0 {
		w.first, w.end = 0, 0
	}
	return leafColumn{def: w.def, rep: w.rep, first: w.first, end: w.end}
}

// levelWriter walks the lists of a path in row order (Dremel's record
// shredding), appending one level pair per leaf value or empty list.
type levelWriter struct {
	p          *leafPath
	def, rep   []int16
	first, end int // the leaf values visited: [first, end)
}

// walk visits elements [lo, hi) of the array above list k (the record
// column for k = 0); the first gets repetition level r, later ones the
// level of the list that holds them.
func (w *levelWriter) walk(k, lo, hi int, r int16) {
	next := int16(0)
	if k > 0 {
		next = w.p.lists[k-1].rep
	}
	step := w.p.lists[k]
	list := step.arr.(array.ListLike)
	last := k == len(w.p.lists)-1
	for j := lo; j < hi; j, r = j+1, next {
		s64, e64 := list.ValueOffsets(j)
		s, e := int(s64), int(e64)
		switch {
		case s == e:
			w.def = append(w.def, step.defIfEmpty)
			w.rep = append(w.rep, r)
		case last:
			if w.first < 0 {
				w.first = s
			}
			w.end = e
			w.rep = append(w.rep, r)
			for range e - s - 1 {
				w.rep = append(w.rep, step.rep)
			}
			for i := s; i < e; i++ {
				w.def = append(w.def, w.p.def(i))
			}
		default:
			w.walk(k+1, s, e, r)
		}
	}
}

// def is the definition level of leaf value i: maxDef, one less where it
// is null.
func (p *leafPath) def(i int) int16 {
	if p.leaf.IsNull(i) {
		return p.maxDef - 1
	}
	return p.maxDef
}
