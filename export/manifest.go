package export

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
	"github.com/apache/arrow-go/v18/parquet"
	"github.com/apache/arrow-go/v18/parquet/compress"
	"github.com/apache/arrow-go/v18/parquet/file"
	"github.com/apache/arrow-go/v18/parquet/pqarrow"
	"github.com/baglab/baglab/internal/atomicfile"
)

// ManifestDir is where a dataset directory keeps its manifest, relative to
// the directory: one Parquet file per exported input,
// _baglab/files/<sha256>.pq (ManifestExt), each holding that input's row.
// Readers merge the rows by reading the folder (DuckDB:
// read_parquet('DIR/_baglab/files/*.pq')). Names starting with "_" are
// left out by Spark and Hive, and the extension keeps the rows out of the
// query people write first, read_parquet('DIR/**/*.parquet',
// hive_partitioning = true), which stops with "Hive partition mismatch"
// on a file outside the key=value folders.
const ManifestDir = "_baglab/files"

// ManifestExt is the extension of a manifest row file. Datasets written
// before it was chosen name their rows <sha256>.parquet (legacyManifestExt);
// they are read as well, and the next export of an input renames its row.
const ManifestExt = ".pq"

const legacyManifestExt = ".parquet"

// ManifestVersion is the layout version of a manifest row
// (ManifestRow.ManifestVersion).
const ManifestVersion = 1

// ManifestRow describes one input of a dataset directory: what it is
// (content digest, container format), what of it the dataset holds (times
// and counts per topic of the rows exported), who wrote it and how, and
// the files it wrote. It is stored as one Parquet row with the columns
// named by the json tags (times as timestamp[ns, UTC], topics as a list of
// structs, parts as a list of strings; start_ns is the column start_time,
// end_ns end_time); the footer's key-value metadata "baglab.manifest_row"
// holds the same row as JSON, with Selection and Recording, which have no
// columns.
//
// The counts and times are those of the rows written into the dataset:
// after the export's selection (--topics, --start, --end) and without the
// messages and topics --skip-bad left out, so that the counts of the rows
// sum to the rows of the dataset. A whole recording exported without
// damage gives the counts and times of its summary, and the same row
// bytes as baglab versions that copied them from the summary.
type ManifestRow struct {
	ManifestVersion int    `json:"manifest_version"`
	Path            string `json:"path"`
	Size            int64  `json:"size"`
	SHA256          string `json:"sha256"`
	// Format is the container format ("bag", "mcap", "db3").
	Format string `json:"format"`
	// StartNs and EndNs are the first and last log times of the rows
	// exported, MessageCount their number (the messages exported: CSV's
	// --arrays explode writes several rows for one); 0 when none were.
	StartNs      int64 `json:"start_ns"`
	EndNs        int64 `json:"end_ns"`
	MessageCount int64 `json:"message_count"`
	// Topics are the topics with rows exported, sorted by name, each with
	// its count and times (a topic the selection left out, or whose
	// messages were all skipped or none recorded, is not listed).
	Topics []ManifestTopic `json:"topics"`
	// BaglabVersion is the version that exported the input.
	BaglabVersion string `json:"baglab_version"`
	// PartitionBy and OutputFormat are the export's --partition-by and
	// --format.
	PartitionBy  string `json:"partition_by"`
	OutputFormat string `json:"output_format"`
	// Parts are the files written, relative to the dataset directory with
	// forward slashes, sorted. Partitioned, they are the input's own part
	// files; unpartitioned, the per-topic files of the run, shared by the
	// inputs of that run.
	Parts []string `json:"parts"`
	// Selection describes the part of the recording exported when it is
	// not all of it (DatasetInput.Selection); kept in the footer's JSON
	// only, so rows of whole recordings are as before.
	Selection string `json:"selection,omitempty"`
	// Recording is the recording's own totals, as its summary gives them,
	// when the row's are not the same: the export had a selection, or
	// left messages or topics out (--skip-bad, a channel that cannot be
	// decoded), or the recording lists topics without messages. Kept in
	// the footer's JSON only (DuckDB: parquet_kv_metadata), so rows of
	// whole recordings are as before. A row with a Selection, a Format
	// (the input had a summary) and no Recording was written by a baglab
	// that gave the recording's totals as the row's.
	Recording *ManifestRecording `json:"recording,omitempty"`
}

// ManifestTopic is one topic of a manifest row: its message type, the
// number of its messages and their first and last log times.
type ManifestTopic struct {
	Topic        string `json:"topic"`
	Type         string `json:"type"`
	MessageCount int64  `json:"message_count"`
	StartNs      int64  `json:"start_ns"`
	EndNs        int64  `json:"end_ns"`
}

// ManifestRecording is a recording's own totals, as its summary gives
// them (ManifestRow.Recording): first and last log times, messages, and
// every topic it lists, in the summary's order, even without messages.
type ManifestRecording struct {
	StartNs      int64           `json:"start_ns"`
	EndNs        int64           `json:"end_ns"`
	MessageCount int64           `json:"message_count"`
	Topics       []ManifestTopic `json:"topics"`
}

// manifestKey is the footer key holding the row as JSON.
const manifestKey = "baglab.manifest_row"

var (
	tsType        = &arrow.TimestampType{Unit: arrow.Nanosecond, TimeZone: "UTC"}
	manifestTopic = arrow.StructOf(
		arrow.Field{Name: "topic", Type: arrow.BinaryTypes.String},
		arrow.Field{Name: "type", Type: arrow.BinaryTypes.String},
		arrow.Field{Name: "message_count", Type: arrow.PrimitiveTypes.Int64},
		arrow.Field{Name: "start_time", Type: tsType},
		arrow.Field{Name: "end_time", Type: tsType},
	)
	manifestSchema = arrow.NewSchema([]arrow.Field{
		{Name: "path", Type: arrow.BinaryTypes.String},
		{Name: "size", Type: arrow.PrimitiveTypes.Int64},
		{Name: "sha256", Type: arrow.BinaryTypes.String},
		{Name: "format", Type: arrow.BinaryTypes.String},
		{Name: "start_time", Type: tsType},
		{Name: "end_time", Type: tsType},
		{Name: "message_count", Type: arrow.PrimitiveTypes.Int64},
		{Name: "topics", Type: arrow.ListOfNonNullable(manifestTopic)},
		{Name: "baglab_version", Type: arrow.BinaryTypes.String},
		{Name: "partition_by", Type: arrow.BinaryTypes.String},
		{Name: "output_format", Type: arrow.BinaryTypes.String},
		{Name: "parts", Type: arrow.ListOfNonNullable(arrow.BinaryTypes.String)},
		{Name: "manifest_version", Type: arrow.PrimitiveTypes.Int32},
	}, nil)
)

// manifestPath is the file of the row of the input with digest sha.
func manifestPath(dir, sha string) string {
	return filepath.Join(dir, filepath.FromSlash(ManifestDir), sha+ManifestExt)
}

// WriteManifestRow writes r as the manifest row of its input in the
// dataset directory dir, atomically: readers see the old row or the new
// one, never a part.
func WriteManifestRow(dir string, r *ManifestRow) error {
	if len(r.SHA256) != 64 || strings.Trim(r.SHA256, "0123456789abcdef") != "" {
		return fmt.Errorf("export: manifest row of %s: bad sha256 %q", r.Path, r.SHA256)
	}
	r.ManifestVersion = ManifestVersion
	doc, err := json.Marshal(r)
	if err != nil {
		return err
	}
	rec := manifestRecord(r)
	defer rec.Release()
	path := manifestPath(dir, r.SHA256)
	err = atomicfile.Write(path, func(w io.Writer) error {
		props := parquet.NewWriterProperties(parquet.WithCompression(compress.Codecs.Zstd),
			parquet.WithCreatedBy("baglab version "+r.BaglabVersion), parquet.WithStats(true))
		fw, err := pqarrow.NewFileWriter(manifestSchema, w, props, pqarrow.DefaultWriterProps())
		if err != nil {
			return err
		}
		if err := fw.Write(rec); err != nil {
			fw.Close()
			return err
		}
		if err := fw.AppendKeyValueMetadata(manifestKey, string(doc)); err != nil {
			fw.Close()
			return err
		}
		return fw.Close()
	})
	if err != nil {
		return err
	}
	if err := os.Remove(strings.TrimSuffix(path, ManifestExt) + legacyManifestExt); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func manifestRecord(r *ManifestRow) arrow.RecordBatch {
	b := array.NewRecordBuilder(memory.DefaultAllocator, manifestSchema)
	defer b.Release()
	str := func(i int, s string) { b.Field(i).(*array.StringBuilder).Append(s) }
	i64 := func(i int, v int64) { b.Field(i).(*array.Int64Builder).Append(v) }
	ts := func(i int, v int64) { b.Field(i).(*array.TimestampBuilder).Append(arrow.Timestamp(v)) }
	str(0, r.Path)
	i64(1, r.Size)
	str(2, r.SHA256)
	str(3, r.Format)
	ts(4, r.StartNs)
	ts(5, r.EndNs)
	i64(6, r.MessageCount)
	lb := b.Field(7).(*array.ListBuilder)
	lb.Append(true)
	sb := lb.ValueBuilder().(*array.StructBuilder)
	for _, t := range r.Topics {
		sb.Append(true)
		sb.FieldBuilder(0).(*array.StringBuilder).Append(t.Topic)
		sb.FieldBuilder(1).(*array.StringBuilder).Append(t.Type)
		sb.FieldBuilder(2).(*array.Int64Builder).Append(t.MessageCount)
		sb.FieldBuilder(3).(*array.TimestampBuilder).Append(arrow.Timestamp(t.StartNs))
		sb.FieldBuilder(4).(*array.TimestampBuilder).Append(arrow.Timestamp(t.EndNs))
	}
	str(8, r.BaglabVersion)
	str(9, r.PartitionBy)
	str(10, r.OutputFormat)
	pb := b.Field(11).(*array.ListBuilder)
	pb.Append(true)
	for _, p := range r.Parts {
		pb.ValueBuilder().(*array.StringBuilder).Append(p)
	}
	b.Field(12).(*array.Int32Builder).Append(int32(r.ManifestVersion))
	return b.NewRecordBatch()
}

// ErrNoManifestRow is returned by ReadManifestRow for an input the
// manifest does not hold.
var ErrNoManifestRow = errors.New("export: input not in the manifest")

// ReadManifestRow returns the manifest row of the input with digest sha in
// the dataset directory dir, or ErrNoManifestRow.
func ReadManifestRow(dir, sha string) (*ManifestRow, error) {
	path := manifestPath(dir, sha)
	r, err := readManifestFile(path)
	if errors.Is(err, ErrNoManifestRow) {
		return readManifestFile(strings.TrimSuffix(path, ManifestExt) + legacyManifestExt)
	}
	return r, err
}

func readManifestFile(path string) (*ManifestRow, error) {
	osf, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, ErrNoManifestRow
	}
	if err != nil {
		return nil, fmt.Errorf("export: manifest row %s: %w", path, err)
	}
	defer osf.Close() // file.OpenParquetFile leaves the file open when it is no Parquet file
	f, err := parquetReader(osf)
	if err != nil {
		return nil, fmt.Errorf("export: manifest row %s: %w", path, err)
	}
	kv := f.MetaData().KeyValueMetadata().FindValue(manifestKey)
	if kv == nil {
		return nil, fmt.Errorf("export: manifest row %s: no %s metadata", path, manifestKey)
	}
	var r ManifestRow
	if err := json.Unmarshal([]byte(*kv), &r); err != nil {
		return nil, fmt.Errorf("export: manifest row %s: %w", path, err)
	}
	if r.ManifestVersion < 1 || r.ManifestVersion > ManifestVersion {
		return nil, fmt.Errorf("export: manifest row %s: version %d (this baglab reads up to %d)", path, r.ManifestVersion, ManifestVersion)
	}
	return &r, nil
}

// parquetReader parses the footer of a Parquet file. arrow-go panics on
// some damaged footers (an unknown logical type in the schema, found by
// FuzzManifestRow); such a file is an error like any other damage.
func parquetReader(r parquet.ReaderAtSeeker) (f *file.Reader, err error) {
	defer func() {
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("damaged Parquet footer: %v", p)
		}
	}()
	return file.NewParquetReader(r)
}

// ReadManifest returns the rows of the manifest of dir in path order (of
// the inputs), or nil when dir has no manifest.
func ReadManifest(dir string) ([]*ManifestRow, error) {
	names, err := manifestFiles(dir)
	if err != nil {
		return nil, err
	}
	var rows []*ManifestRow
	for _, n := range names {
		r, err := readManifestFile(n)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
	}
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].Path < rows[j].Path })
	return rows, nil
}

// manifestFiles lists the row files of dir's manifest (nil without one).
func manifestFiles(dir string) ([]string, error) {
	ents, err := os.ReadDir(filepath.Join(dir, filepath.FromSlash(ManifestDir)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	current := map[string]bool{}
	for _, e := range ents {
		if n := e.Name(); e.Type().IsRegular() && strings.HasSuffix(n, ManifestExt) {
			current[strings.TrimSuffix(n, ManifestExt)] = true
		}
	}
	for _, e := range ents {
		n := e.Name()
		if !e.Type().IsRegular() || strings.HasPrefix(n, ".") {
			continue
		}
		if strings.HasSuffix(n, ManifestExt) || strings.HasSuffix(n, legacyManifestExt) && !current[strings.TrimSuffix(n, legacyManifestExt)] {
			out = append(out, filepath.Join(dir, filepath.FromSlash(ManifestDir), n))
		}
	}
	return out, nil
}
