// Package analysis computes the statistics of `baglab analyze` from decoded
// messages: placements and learned placement models (interactive_world_msgs),
// grasp success rates (rail_manipulation_msgs, rail_pick_and_place_msgs),
// fact intervals (toaster_msgs), topological maps (lama_msgs), query
// service events (remap_msgs); the health of every topic of any recording
// is the analysis of its own package, analysis/topics.
//
// Every analysis is a mergeable accumulator (Analyzer): Add feeds one
// decoded message, Merge folds in the partial result of another accumulator
// of the same kind (another file, another worker), and Result computes the
// statistics. Merging is exact: accumulators keep observations or integer
// counts, and Result sorts them canonically before any floating-point work,
// so any split of the input and any merge order give bit-identical numbers.
//
// Each analysis declares its Kind: name, help summary, factory, its
// tables' keys for baseline comparisons, its own command-line flags
// (Flag) and whether it reads messages as recorded (Raw: a run decodes
// nothing for it). The registry, package analysis/kinds, lists them one
// row each, so a new analysis is its own package and one row there. Run
// reads recording.Inputs into the kinds asked for: each input into its own
// accumulators, up to jobs at once, merged in input order, so the result
// does not depend on jobs.
// A Result gives its tables, a one-line Summary, whether it found data
// (HasData) and its Warnings; one that can write learned models as a
// recording implements ModelWriter.
//
// Analyses read fields by name from value trees with value's lenient
// readers (Lookup, LookupFloat …), so the several upstream layouts of a
// type (rail_manipulation_msgs/Grasp with and without grasp_id) need no
// special cases.
//
// Results marshal to the JSON of `baglab analyze --json`, which the
// package baseline compares with a saved one. Accumulated state saves to partial files and merges
// back (Accumulated.Partial, MergePartialFiles); an Input is what a
// partial file and a report record of each input, described from the
// run that read it (DescribeInputs, DescribePaths). Tables
// gives results as tidy tables (written by the subpackage tabular as
// Parquet and CSV, tabular.WriteResults, or as aligned text by
// Table.WriteText); PlacementsResult.TaskModels builds the
// interactive_world_msgs/TaskModels message a robot loads, WriteModels
// writes it. Plotting (plot.WriteDir) and report rendering live in the
// subpackages plot and report.
package analysis
