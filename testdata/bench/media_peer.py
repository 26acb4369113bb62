"""The script a user would write to get PNG frames out of a bag: Debian's
rosbag reads it, cv_bridge converts each sensor_msgs/Image, cv2.imwrite
writes it (OpenCV's default PNG settings).

  media_peer.py write BAG N     a bag of N 640x480 rgb8 frames (a moving
                                gradient with noise), written by rosbag
  media_peer.py extract BAG DIR the frames as DIR/<log time ns>.png
"""
import os
import sys

import cv2
import numpy as np
import rosbag
import rospy
from cv_bridge import CvBridge
from sensor_msgs.msg import Image


def write(path, n):
    rng = np.random.default_rng(1)
    yy, xx = np.mgrid[0:480, 0:640]
    noise = rng.integers(0, 16, size=(480, 640, 3), dtype=np.uint8)
    with rosbag.Bag(path, "w") as bag:
        for i in range(n):
            img = np.stack([(xx + 3 * i) % 256, (yy + 2 * i) % 256, (xx + yy + i) % 256], axis=2).astype(np.uint8)
            img = img + noise
            m = Image(height=480, width=640, encoding="rgb8", step=640 * 3, data=img.tobytes())
            t = rospy.Time(1714564800) + rospy.Duration(0, 33333333 * i)
            m.header.stamp, m.header.seq, m.header.frame_id = t, i, "camera"
            bag.write("/camera/image_raw", m, t)


def extract(path, out):
    os.makedirs(out, exist_ok=True)
    bridge = CvBridge()
    for _, msg, t in rosbag.Bag(path).read_messages(topics=["/camera/image_raw"]):
        cv2.imwrite(os.path.join(out, "%d.png" % t.to_nsec()), bridge.imgmsg_to_cv2(msg, "bgr8"))


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(sys.argv[2], int(sys.argv[3]))
    else:
        extract(sys.argv[2], sys.argv[3])
