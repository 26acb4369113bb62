// peer.cpp drives compressed_depth_image_transport's own codec (codec.cpp
// and rvl_codec.cpp of ros-perception/image_transport_plugins, not part of
// this repository; see gen.sh) to make baglab's RVL fixtures:
//
//   peer ENCODING WIDTH HEIGHT COMPRESSION DEPTH_MAX QUANT PNG_LEVEL IN OUT
//
// reads IN, a WIDTH x HEIGHT image of ENCODING (16UC1 or 32FC1, rows
// packed, little-endian), compresses it with encodeCompressedDepthImage
// and writes OUT.format (the CompressedImage's format), OUT.data (its
// data) and OUT.decoded (the rows decodeCompressedDepthImage makes of
// that message again).
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include <compressed_depth_image_transport/codec.h>
#include <sensor_msgs/image_encodings.h>

namespace cdit = compressed_depth_image_transport;
namespace enc = sensor_msgs::image_encodings;

static void write(const std::string& path, const void* p, size_t n)
{
  std::ofstream f(path, std::ios::binary);
  f.write(static_cast<const char*>(p), n);
  if (!f)
  {
    std::cerr << "cannot write " << path << "\n";
    std::exit(1);
  }
}

int main(int argc, char** argv)
{
  if (argc != 10)
  {
    std::cerr << "usage: peer ENCODING WIDTH HEIGHT COMPRESSION DEPTH_MAX QUANT PNG_LEVEL IN OUT\n";
    return 2;
  }
  sensor_msgs::Image img;
  img.encoding = argv[1];
  img.width = std::stoul(argv[2]);
  img.height = std::stoul(argv[3]);
  img.is_bigendian = 0;
  img.step = img.width * enc::bitDepth(img.encoding) / 8;
  std::ifstream in(argv[8], std::ios::binary);
  img.data.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  if (img.data.size() != size_t(img.step) * img.height)
  {
    std::cerr << argv[8] << ": " << img.data.size() << " bytes, want " << img.step * img.height << "\n";
    return 1;
  }
  sensor_msgs::CompressedImage::Ptr c = cdit::encodeCompressedDepthImage(
      img, argv[4], std::stod(argv[5]), std::stod(argv[6]), std::stoi(argv[7]));
  if (!c)
  {
    std::cerr << "encodeCompressedDepthImage failed\n";
    return 1;
  }
  sensor_msgs::Image::Ptr d = cdit::decodeCompressedDepthImage(*c);
  if (!d)
  {
    std::cerr << "decodeCompressedDepthImage failed\n";
    return 1;
  }
  std::string out = argv[9];
  write(out + ".format", c->format.data(), c->format.size());
  write(out + ".data", c->data.data(), c->data.size());
  write(out + ".decoded", d->data.data(), d->data.size());
  std::cout << out << ": " << c->format << ", " << c->data.size() << " bytes, decoded " << d->encoding << " "
            << d->width << "x" << d->height << " step " << d->step << "\n";
  return 0;
}
