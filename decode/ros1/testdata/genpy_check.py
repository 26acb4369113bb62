"""Serialize a few known messages with Debian's genpy (the reference ROS1
Python implementation) for decode/ros1's TestGenpy.

Run with /usr/bin/python3 (python3-genpy, ros-std-msgs, ros-geometry-msgs,
ros-sensor-msgs). Prints one JSON object per message:
{"name", "type", "md5", "definition" (genmsg full text), "hex" (wire bytes)}.
The values here are mirrored by the expected JSON in genpy_test.go.
"""
import io
import json

import genpy
import genpy.dynamic
from geometry_msgs.msg import PoseStamped
from sensor_msgs.msg import CameraInfo, PointCloud2, PointField
from std_msgs.msg import Header

# A type exercising time[], duration, fixed arrays, char and byte.
CUSTOM = """time[] stamps
duration d
duration[2] ds
int32[3] fixed
uint8[4] id
string[2] names
float32 f
int8[] small
char c
byte b
uint64 big
int64 neg
bool flag
"""
Custom = genpy.dynamic.generate_dynamic("baglab_test/Custom", CUSTOM)["baglab_test/Custom"]


def header():
    return Header(seq=7, stamp=genpy.Time(1700000000, 123456789), frame_id="base_link")


def messages():
    yield "header", header()

    ps = PoseStamped(header=header())
    ps.pose.position.x, ps.pose.position.y, ps.pose.position.z = 1.5, -2.25, 3e-5
    ps.pose.orientation.z = ps.pose.orientation.w = 0.7071067811865476
    yield "pose_stamped", ps

    pc = PointCloud2(header=header(), height=1, width=2, is_bigendian=False,
                     point_step=8, row_step=16, data=bytes(range(16)), is_dense=True)
    pc.fields = [PointField(name="x", offset=0, datatype=PointField.FLOAT32, count=1),
                 PointField(name="y", offset=4, datatype=PointField.FLOAT32, count=1)]
    yield "point_cloud2", pc

    ci = CameraInfo(header=header(), height=480, width=640, distortion_model="plumb_bob",
                    D=[0.1, -0.2, 0.0, 0.0, 0.0],
                    K=[500.0, 0.0, 320.0, 0.0, 500.0, 240.0, 0.0, 0.0, 1.0],
                    R=[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0],
                    P=[500.0, 0.0, 320.0, 0.0, 0.0, 500.0, 240.0, 0.0, 0.0, 0.0, 1.0, 0.0],
                    binning_x=2, binning_y=0)
    ci.roi.x_offset, ci.roi.width, ci.roi.do_rectify = 10, 100, True
    yield "camera_info", ci

    c = Custom(stamps=[genpy.Time(1, 2), genpy.Time(4294967295, 999999999)],
               d=genpy.Duration(-1, 500), ds=[genpy.Duration(3, 0), genpy.Duration(-2147483648, 1)],
               fixed=[-1, 0, 2147483647], id=bytes([0, 1, 254, 255]), names=["héllo", "tab\there \"q\""],
               f=0.1, small=[-128, 127], c=65, b=-5, big=18446744073709551615,
               neg=-9223372036854775808, flag=True)
    yield "custom", c


for name, msg in messages():
    buf = io.BytesIO()
    msg.serialize(buf)
    print(json.dumps({"name": name, "type": msg._type, "md5": msg._md5sum,
                      "definition": msg._full_text, "hex": buf.getvalue().hex()}))
