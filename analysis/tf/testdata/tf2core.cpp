// Look transforms up with Debian's tf2 BufferCore (libtf2-dev 0.7.6)
// from C++, with exact nanosecond stamps: tf2's python binding passes
// every stamp through a double (rospy.Time.to_sec, then ros::Time::fromSec),
// which at epoch times is 238 ns coarse, so at those times only the C++
// library itself can be asked exactly.
//
//   tf2core TRANSFORMS < queries
//
// TRANSFORMS is what `tf2peer.py --dump BAG` writes: one transform a line,
// in log-time order, "S" (static) or "D", parent, child, sec, nsec,
// translation x y z and rotation x y z w as Python's repr (which strtod
// reads back to the same double), separated by tabs. Each query line is
// TARGET, SOURCE and TIME_NS separated by tabs; each answer is one JSON
// line, {"stamp", "t": [x, y, z], "q": [x, y, z, w]} or {"error", "msg"},
// as tf2peer.py gives them.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include <tf2/buffer_core.h>
#include <tf2/exceptions.h>

static std::vector<std::string> split(const std::string &line) {
  std::vector<std::string> f;
  std::string cur;
  std::istringstream in(line);
  while (std::getline(in, cur, '\t')) f.push_back(cur);
  return f;
}

static std::string quote(const std::string &s) {
  std::string o = "\"";
  for (unsigned char c : s) {
    if (c == '"' || c == '\\') {
      o += '\\';
      o += c;
    } else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      o += b;
    } else {
      o += c;
    }
  }
  return o + "\"";
}

static ros::Time fromNSec(unsigned long long ns) {
  ros::Time t;
  t.sec = ns / 1000000000ull;
  t.nsec = ns % 1000000000ull;
  return t;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: tf2core TRANSFORMS < queries\n";
    return 2;
  }
  tf2::BufferCore buf(ros::Duration(1000000, 0));  // as tf2peer.py: keep everything
  std::ifstream dump(argv[1]);
  std::string line;
  while (std::getline(dump, line)) {
    std::vector<std::string> f = split(line);
    if (f.size() != 12) {
      std::cerr << "tf2core: bad transform line: " << line << "\n";
      return 1;
    }
    geometry_msgs::TransformStamped t;
    t.header.frame_id = f[1];
    t.child_frame_id = f[2];
    t.header.stamp.sec = std::strtoul(f[3].c_str(), nullptr, 10);
    t.header.stamp.nsec = std::strtoul(f[4].c_str(), nullptr, 10);
    double *v[] = {&t.transform.translation.x, &t.transform.translation.y, &t.transform.translation.z,
                   &t.transform.rotation.x,    &t.transform.rotation.y,    &t.transform.rotation.z,
                   &t.transform.rotation.w};
    for (int i = 0; i < 7; i++) *v[i] = std::strtod(f[5 + i].c_str(), nullptr);
    buf.setTransform(t, "peer", f[0] == "S");
  }
  while (std::getline(std::cin, line)) {
    std::vector<std::string> f = split(line);
    while (f.size() < 3) f.push_back("");  // an empty frame name at the end
    const char *kind = nullptr;
    std::string msg;
    geometry_msgs::TransformStamped r;
    try {
      r = buf.lookupTransform(f[0], f[1], fromNSec(std::strtoull(f[2].c_str(), nullptr, 10)));
    } catch (const tf2::ConnectivityException &e) {
      kind = "ConnectivityException", msg = e.what();
    } catch (const tf2::LookupException &e) {
      kind = "LookupException", msg = e.what();
    } catch (const tf2::ExtrapolationException &e) {
      kind = "ExtrapolationException", msg = e.what();
    } catch (const tf2::InvalidArgumentException &e) {
      kind = "InvalidArgumentException", msg = e.what();
    } catch (const tf2::TransformException &e) {
      kind = "TransformException", msg = e.what();
    }
    if (kind) {
      std::printf("{\"error\": \"%s\", \"msg\": %s}\n", kind, quote(msg).c_str());
      continue;
    }
    const geometry_msgs::Vector3 &p = r.transform.translation;
    const geometry_msgs::Quaternion &q = r.transform.rotation;
    std::printf("{\"stamp\": %llu, \"t\": [%.17g, %.17g, %.17g], \"q\": [%.17g, %.17g, %.17g, %.17g]}\n",
                (unsigned long long)r.header.stamp.toNSec(), p.x, p.y, p.z, q.x, q.y, q.z, q.w);
  }
  return 0;
}
