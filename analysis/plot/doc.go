// Package plot draws analysis results with gonum/plot, fit for a paper:
// placements on each surface at equal x and y scale with every EM
// cluster's mean and 1σ/2σ ellipses, the surface outline and the frame's
// origin; grasp success rates with their Wilson intervals and the
// untried grasps apart; learning curves with their Wilson band; fact
// timelines against the time since the recording started. Legends sit
// beside the data, axes carry units, and a result without data gets no
// figure. Each figure renders as SVG or as PNG at a chosen resolution.
//
// Each analysis draws its figures in its own file here; its row in the
// registry (package analysis/kinds) names them (For), so adding an
// analysis with figures adds one file here.
package plot
