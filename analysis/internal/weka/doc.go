// Package weka is a port of the parts of Weka 3.6 (jinteractiveworld
// depends on weka-stable 3.6.10; the port follows Weka 3.6.14, EM revision
// 9988, the 3.6 release the tests run as a peer) that its EMModel uses:
// weka.clusterers.EM with the number of clusters chosen by
// cross-validation (em.go), its SimpleKMeans initialisation (kmeans.go;
// Euclidean distance on attributes normalised to their range), the
// Instances helpers they call (data.go: randomize, trainCV/testCV,
// variance, attributeStats) and java.util.Random (rand.go). Summation
// order, random draws, tie rules and the restart-on-failure behaviour
// follow the Java code, so the same input in the same order gives the
// same clusters, bit for bit.
//
// What differs from the Java code is only how the work is scheduled, never
// an operation on a value:
//   - the folds of a cross-validation round are fitted in parallel (each
//     fold starts from its own seeded generator in Weka too) and their
//     log-likelihoods summed in fold order;
//   - the shuffled folds, the attribute ranges k-means normalises by and
//     the attribute standard deviations EM falls back to are computed once
//     per data set instead of once per use (they are the same every round);
//   - values used in every row of an E step (log σ, 2σ², log prior) are
//     computed once per step, and exp(x - max) once per row and cluster;
//   - k-means takes the square root of a squared distance only when it can
//     beat the best so far (sqrt is monotonic, so the comparisons and ties
//     are unchanged);
//   - loops are interchanged where each accumulator still sees its terms in
package weka
