// Package studygen generates deterministic, realistic experiment recordings
// for demos, tests and benchmarks: a crowdsourced placement study, grasp
// demonstrations and models with success counts, GraspAndStore and
// GetYesNoFeedback action streams, TOASTER fact streams, a LaMa map being
// built and remap Query service events, plus one message of every type of
// the native packages, in every container format and compression, and
// broken variants. Every random draw comes from a seeded generator and the
// ground truth the data was drawn from is returned alongside.
package studygen
