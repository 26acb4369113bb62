package weka

// javaRandom is java.util.Random: the 48-bit linear congruential generator
// Weka draws its seeds, shuffles and k-means starts from. Reproducing it
// exactly makes the learner pick the same folds and starting centroids as
// the original jinteractiveworld learner.
type javaRandom struct{ seed int64 }

const (
	javaMultiplier = 0x5DEECE66D
	javaAddend     = 0xB
	javaMask       = (1 << 48) - 1
)

func newJavaRandom(seed int64) *javaRandom {
	return &javaRandom{seed: (seed ^ javaMultiplier) & javaMask}
}

func (r *javaRandom) next(bits uint) int32 {
	r.seed = (r.seed*javaMultiplier + javaAddend) & javaMask
	return int32(r.seed >> (48 - bits))
}

// nextInt is Random.nextInt().
func (r *javaRandom) nextInt() int32 { return r.next(32) }

// nextIntn is Random.nextInt(bound), bound > 0.
func (r *javaRandom) nextIntn(bound int32) int32 {
	if bound&-bound == bound {
		return int32((int64(bound) * int64(r.next(31))) >> 31)
	}
	for {
		bits := r.next(31)
		val := bits % bound
		if bits-val+(bound-1) >= 0 {
			return val
		}
	}
}

// nextDouble is Random.nextDouble().
func (r *javaRandom) nextDouble() float64 {
	return float64(int64(r.next(26))<<27+int64(r.next(27))) * (1.0 / (1 << 53))
}
