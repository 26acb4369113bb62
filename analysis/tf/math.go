package tf

import "math"

// Vec3 is a translation (x, y, z).
type Vec3 struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	Z float64 `json:"z"`
}

// Quat is a rotation quaternion (x, y, z, w).
type Quat struct {
	X float64 `json:"x"`
	Y float64 `json:"y"`
	Z float64 `json:"z"`
	W float64 `json:"w"`
}

// Identity is the rotation that leaves every vector as it is.
var Identity = Quat{W: 1}

// Transform is a rigid transform: rotate by Rotation, then translate.
type Transform struct {
	Translation Vec3
	Rotation    Quat
}

// The operations below follow tf2's LinearMath (Quaternion.h, Vector3.h)
// operation for operation, so that results agree with tf2 to the last bit
// wherever the compiler keeps the same order.

func (a Vec3) add(b Vec3) Vec3 { return Vec3{a.X + b.X, a.Y + b.Y, a.Z + b.Z} }
func (a Vec3) neg() Vec3       { return Vec3{-a.X, -a.Y, -a.Z} }

// lerp is tf2::Vector3::setInterpolate3(a, b, rt).
func lerp(a, b Vec3, rt float64) Vec3 {
	s := 1.0 - rt
	return Vec3{s*a.X + rt*b.X, s*a.Y + rt*b.Y, s*a.Z + rt*b.Z}
}

// mul is tf2's Quaternion operator*(q1, q2).
func (q1 Quat) mul(q2 Quat) Quat {
	return Quat{
		q1.W*q2.X + q1.X*q2.W + q1.Y*q2.Z - q1.Z*q2.Y,
		q1.W*q2.Y + q1.Y*q2.W + q1.Z*q2.X - q1.X*q2.Z,
		q1.W*q2.Z + q1.Z*q2.W + q1.X*q2.Y - q1.Y*q2.X,
		q1.W*q2.W - q1.X*q2.X - q1.Y*q2.Y - q1.Z*q2.Z,
	}
}

// mulAssign is tf2's Quaternion operator*= (this = this * q).
func (q1 Quat) mulAssign(q Quat) Quat {
	return Quat{
		q1.W*q.X + q1.X*q.W + q1.Y*q.Z - q1.Z*q.Y,
		q1.W*q.Y + q1.Y*q.W + q1.Z*q.X - q1.X*q.Z,
		q1.W*q.Z + q1.Z*q.W + q1.X*q.Y - q1.Y*q.X,
		q1.W*q.W - q1.X*q.X - q1.Y*q.Y - q1.Z*q.Z,
	}
}

func (q Quat) inverse() Quat      { return Quat{-q.X, -q.Y, -q.Z, q.W} }
func (q Quat) neg() Quat          { return Quat{-q.X, -q.Y, -q.Z, -q.W} }
func (q Quat) dot(p Quat) float64 { return q.X*p.X + q.Y*p.Y + q.Z*p.Z + q.W*p.W }
func (q Quat) length2() float64   { return q.dot(q) }

// rotate is tf2's quatRotate(q, v): q * v * q⁻¹.
func (q Quat) rotate(v Vec3) Vec3 {
	// Quaternion operator*(q, Vector3 w)
	r := Quat{
		q.W*v.X + q.Y*v.Z - q.Z*v.Y,
		q.W*v.Y + q.Z*v.X - q.X*v.Z,
		q.W*v.Z + q.X*v.Y - q.Y*v.X,
		-q.X*v.X - q.Y*v.Y - q.Z*v.Z,
	}
	r = r.mulAssign(q.inverse())
	return Vec3{r.X, r.Y, r.Z}
}

// angleShortestPath is tf2's Quaternion::angleShortestPath.
func (q Quat) angleShortestPath(p Quat) float64 {
	s := math.Sqrt(q.length2() * p.length2())
	if q.dot(p) < 0 {
		return math.Acos(q.dot(p.neg())/s) * 2.0
	}
	return math.Acos(q.dot(p)/s) * 2.0
}

// slerp is tf2's Quaternion::slerp(q, t) on q1.
func slerp(q1, q Quat, t float64) Quat {
	theta := q1.angleShortestPath(q) / 2.0
	if theta == 0 {
		return q1
	}
	d := 1.0 / math.Sin(theta)
	s0 := math.Sin((1.0 - t) * theta)
	s1 := math.Sin(t * theta)
	if q1.dot(q) < 0 {
		return Quat{(q1.X*s0 + -q.X*s1) * d, (q1.Y*s0 + -q.Y*s1) * d, (q1.Z*s0 + -q.Z*s1) * d, (q1.W*s0 + -q.W*s1) * d}
	}
	return Quat{(q1.X*s0 + q.X*s1) * d, (q1.Y*s0 + q.Y*s1) * d, (q1.Z*s0 + q.Z*s1) * d, (q1.W*s0 + q.W*s1) * d}
}

// Apply returns p expressed in the parent frame: R·p + t.
func (t Transform) Apply(p Vec3) Vec3 { return t.Rotation.rotate(p).add(t.Translation) }

// Compose returns t∘u: first u, then t (tf2 Transform operator*).
func (t Transform) Compose(u Transform) Transform {
	return Transform{Translation: t.Apply(u.Translation), Rotation: t.Rotation.mul(u.Rotation)}
}

// RPY returns roll, pitch and yaw in radians as tf2's
// Matrix3x3(q).getRPY gives them (the first solution of getEulerYPR).
func (q Quat) RPY() (roll, pitch, yaw float64) {
	// Matrix3x3::setRotation
	d := q.length2()
	if d == 0 {
		return 0, 0, 0
	}
	s := 2.0 / d
	xs, ys, zs := q.X*s, q.Y*s, q.Z*s
	wx, wy, wz := q.W*xs, q.W*ys, q.W*zs
	xx, xy, xz := q.X*xs, q.X*ys, q.X*zs
	yy, yz, zz := q.Y*ys, q.Y*zs, q.Z*zs
	m00, m10 := 1.0-(yy+zz), xy+wz
	m20, m21, m22 := xz-wy, yz+wx, 1.0-(xx+yy)
	if math.Abs(m20) >= 1 {
		delta := math.Atan2(m21, m22)
		if m20 < 0 {
			return delta, math.Pi / 2, 0
		}
		return delta, -math.Pi / 2, 0
	}
	pitch = -math.Asin(m20)
	c := math.Cos(pitch)
	roll = math.Atan2(m21/c, m22/c)
	yaw = math.Atan2(m10/c, m00/c)
	return roll, pitch, yaw
}
