// Package recording is baglab's front door to recordings.
//
// Open recognises one recording by its magic bytes (ROS1 bag 2.0, MCAP,
// rosbag2 sqlite3, or a rosbag2 folder) and Create starts one. Every
// format is one row of the format table in formats.go (its magic, file
// endings, open, reader, check, repair, create and compressions); the
// containers themselves live in the subpackages bag, mcapfile and db3 and
// take one option set, record.ReadOptions. Their summaries are folded by
// record.SummaryBuilder and their splits merged by internal/merge.
// Decoding a message is package decode's job (decode.Resolver turns a
// channel's schema into a compiled codec, ROS1 or CDR, cached by schema).
//
// Commands read through Inputs, which owns every step between the paths a
// user names and the messages a consumer gets:
//
//	in, err := recording.OpenInputs(paths, recording.InputOptions{
//		Registry:  reg,                                   // definitions the files lack
//		Selection: recording.Selection{Topics: []string{"/grasp/**"}, Start: "+10s"},
//		SkipBad:   true, OnSkip: report,                  // one meaning of skip-bad
//		OnWarning: warn,                                  // a pattern or window that selects nothing
//		Progress:  bar.Add,                               // messages read
//	})
//	defer in.Close()
//	err = in.RequireDefinitions()                         // one error naming every missing type
//	it, err := in.Messages(ctx)                           // one stream in log time order (cat, convert, play)
//	d, err := in.File(i).Decoded(ctx)                     // one recording, with each message's decoder (export)
//	err = in.Each(ctx, recording.EachOptions{Jobs: 4, Want: want, Visit: visit}) // per input, in parallel (analyses)
//
// OpenInputs expands folders (see Expand): a rosbag2 folder is one
// recording, any other folder the recordings in it, in name order. It
// reads every summary, combines them (Summary), and resolves the
// selection against them: patterns that match nothing at all and times
// that do not parse are errors wrapping ErrSelection, a pattern among
// others that matches nothing and a time window outside the recording are
// warnings. An input that cannot be opened is an *InputError; damage is a
// *record.Error naming file, offset and field. Each file is closed again
// once its summary and channels are read, and opened again only while an
// iterator reads it, so open files do not grow with the number of inputs
// (a stream, standard input, stays open until Close).
//
// Skip-bad has one meaning for every reading: damaged chunks and records
// the containers can step over, messages that do not decode and channels
// without a usable definition all go to Inputs.Skip, which reports them
// and lets the reading go on, or stops it when SkipBad is off. A Plan
// gives each reader its channels' decoders; a channel without one is
// reported once per topic and type, when the inputs are opened, in every
// verb. Every iterator of Inputs checks its context, so a command stops
// promptly on a signal.
//
// On top of Inputs sit WriteNDJSON (the cat format, rendered in parallel
// and written in order), CopyTo (convert, filter, merge: definitions,
// re-encoding for ROS1 bags, MCAP metadata and attachments through
// CopyExtras) and, in package analysis, analysis.Run.
//
// The per-file verbs have their front doors here too: Describe and
// DescribeEach (info, Description.WriteText), Check and CheckEach (doctor,
// FileProblem, RepairHint), Repair and RepairOutput (reindex, recover).
package recording
