// Package media writes the images and point clouds a recording holds as
// files a viewer opens: every sensor_msgs/Image, CompressedImage and
// PointCloud2 (ROS 1, and ROS 2's sensor_msgs/msg/*), top-level or nested
// at any depth of a message (rail_pick_and_place_msgs/GraspDemonstration's
// image and point_cloud), becomes a lossless PNG, the compressed image's
// own bytes, or a PCD (or PLY) file, listed in an index (Parquet and CSV)
// for notebooks; Video makes one MP4 per image stream with ffmpeg.
//
// Messages are decoded through a sink (Capture) that keeps only the media
// fields, copying each image's or cloud's data once; workers convert and
// write the frames, so memory is bounded by a few frames per worker.
//
// Conversions, decided once and documented in README's Media section:
//   - rgb8, rgba8 and mono8/mono16 are written as they are; bgr8/bgra8 are
//     reordered to RGB(A); 16-bit images stay 16-bit (byte order fixed for
//     little- and big-endian data alike);
//   - nUC1 is grey, nUC2 grey+alpha, nUC3/nUC4 are BGR/BGRA (OpenCV's
//     channel order, as cv2.imwrite writes them), n = 8 or 16;
//   - 32FC1 depth (metres) becomes 16-bit millimetres as ROS's 16UC1 depth
//     convention, rounded (halves to even, as OpenCV and numpy round);
//     NaN, infinities and depths at or below zero are 0 (no reading),
//     depths beyond 65.535 m are 65535;
//   - bayer_* are demosaiced bilinearly as OpenCV's cvtColor does (what
//     cv_bridge gives), or written as the raw grey mosaic with Raw;
//   - yuv422 (UYVY) and yuv422_yuy2 (YUYV) are converted to RGB with
//     OpenCV's BT.601 video-range integer formula;
//   - a CompressedImage is its own bytes, with the extension its magic
//     bytes give (.jpg, .png, .webp, .tif; .bin otherwise); a
//     compressedDepth image (PNG or RVL) is decoded: 16UC1 gives a 16-bit
//     PNG of its depths, 32FC1 its depths in 16-bit millimetres as above;
//   - a PointCloud2 keeps every field (packed rgb/rgba with their stored
//     type, as PCL writes them) and its NaN points unless DropNaN.
package media
