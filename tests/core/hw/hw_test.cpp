// core/hw: PCI classification, the hwloc probe (on a made-up GPU server from
// an XML fixture, and on this machine) and the Slurm lines it gives.
#include <gtest/gtest.h>

#include <string>
#include <thread>

#include "core/hw/hwloc_probe.h"
#include "core/hw/machine_json.h"
#include "core/hw/pci_classes.h"
#include "core/hw/slurm_node.h"
#include "core/hw/thread_pinning.h"
#include "core/util/error.h"

namespace pacml::hw {
namespace {

std::string gpu_node_xml() {
  return std::string(PACML_SOURCE_DIR) + "/tests/fixtures/hw/gpu-node.xml";
}

TEST(PciClasses, GpusAreComputeDevicesNotBmcVga) {
  EXPECT_TRUE(is_gpu(0x0302, kVendorNvidia, false));   // A100: 3D controller
  EXPECT_TRUE(is_gpu(0x0302, 0x1234, false));          // any 3D controller
  EXPECT_TRUE(is_gpu(0x0300, kVendorNvidia, false));   // GeForce: VGA
  EXPECT_TRUE(is_gpu(0x0380, kVendorAmd, false));      // Instinct: display controller
  EXPECT_TRUE(is_gpu(0x1200, 0x1da3, true));           // accelerator with an OpenCL device
  EXPECT_FALSE(is_gpu(0x0300, 0x1a03, false));         // ASPEED BMC VGA
  EXPECT_FALSE(is_gpu(0x0300, 0x1234, false));         // QEMU standard VGA
  EXPECT_FALSE(is_gpu(0x0200, kVendorNvidia, false));  // NVIDIA (Mellanox) Ethernet
}

TEST(PciClasses, NicKinds) {
  EXPECT_EQ(nic_kind(0x0200), "ethernet");
  EXPECT_EQ(nic_kind(0x0207), "infiniband");
  EXPECT_EQ(nic_kind(0x0280), "network");
  EXPECT_EQ(nic_kind(0x0302), "");
  EXPECT_EQ(nic_kind(0x0108), "");
}

TEST(PciClasses, GpuDeviceFiles) {
  EXPECT_EQ(gpu_device_file(kVendorNvidia, 3, {"card4", "renderD131"}), "/dev/nvidia3");
  EXPECT_EQ(gpu_device_file(kVendorAmd, -1, {"card1", "renderD129"}), "/dev/dri/renderD129");
  EXPECT_EQ(gpu_device_file(kVendorAmd, -1, {"card2"}), "/dev/dri/card2");
  EXPECT_EQ(gpu_device_file(kVendorAmd, -1, {"opencl0d0"}), "");
}

TEST(PciClasses, IndexRanges) {
  EXPECT_EQ(index_ranges({}), "");
  EXPECT_EQ(index_ranges({5}), "5");
  EXPECT_EQ(index_ranges({0, 1, 2, 3}), "0-3");
  EXPECT_EQ(index_ranges({0, 1, 4, 6, 7, 8}), "0-1,4,6-8");
}

TEST(HwlocProbe, GpuServerFromXml) {
  const Machine m = probe_machine_xml(gpu_node_xml());
  EXPECT_EQ(m.hostname, "gpu01.cluster.example");
  EXPECT_EQ(m.sockets, 2);
  EXPECT_EQ(m.cores, 4);
  EXPECT_EQ(m.threads, 8);
  EXPECT_EQ(m.cores_per_socket(), 2);
  EXPECT_EQ(m.threads_per_core(), 2);
  EXPECT_EQ(m.memory_bytes, 128ull << 30);
  EXPECT_EQ(m.real_memory_mb(), 131072u);
  ASSERT_EQ(m.gpus.size(), 2u);  // the ASPEED VGA is not one
  EXPECT_EQ(m.gpus[0].pci.bus_id, "0000:17:00.0");
  EXPECT_EQ(m.gpus[0].pci.vendor_id, kVendorNvidia);
  EXPECT_EQ(m.gpus[0].pci.device_name, "GA100 [A100 SXM4 80GB]");
  EXPECT_EQ(m.gpus[0].device_file, "/dev/nvidia0");
  EXPECT_EQ(m.gpus[0].pci.local_cores, (std::vector<int>{0, 1}));
  EXPECT_EQ(m.gpus[1].pci.bus_id, "0000:b1:00.0");
  EXPECT_EQ(m.gpus[1].device_file, "/dev/nvidia1");
  EXPECT_EQ(m.gpus[1].pci.local_cores, (std::vector<int>{2, 3}));
  ASSERT_EQ(m.nics.size(), 2u);
  EXPECT_EQ(m.nics[0].kind, "infiniband");
  EXPECT_EQ(m.nics[0].interfaces, std::vector<std::string>{"ib0"});
  EXPECT_EQ(m.nics[0].fabrics, std::vector<std::string>{"mlx5_0"});
  EXPECT_EQ(m.nics[1].kind, "ethernet");
  EXPECT_EQ(m.nics[1].interfaces, std::vector<std::string>{"eno1"});
}

TEST(HwlocProbe, SlurmLinesForGpuServer) {
  const Machine m = probe_machine_xml(gpu_node_xml());
  EXPECT_EQ(slurm_node_line(m),
            "NodeName=gpu01 CPUs=8 Sockets=2 CoresPerSocket=2 ThreadsPerCore=2 "
            "RealMemory=131072 Gres=gpu:2");
  EXPECT_EQ(slurm_node_attributes(m),
            "CPUs=8 Sockets=2 CoresPerSocket=2 ThreadsPerCore=2 RealMemory=131072 Gres=gpu:2");
  EXPECT_EQ(gres_conf_lines(m, "node7"),
            (std::vector<std::string>{"NodeName=node7 Name=gpu File=/dev/nvidia0 Cores=0-1",
                                      "NodeName=node7 Name=gpu File=/dev/nvidia1 Cores=2-3"}));
  const std::vector<std::string> notes = machine_notes(m);
  ASSERT_EQ(notes.size(), 4u);
  EXPECT_NE(notes[2].find("# nic infiniband 0000:31:00.0 [15b3:101b]"), std::string::npos);
  EXPECT_NE(notes[2].find("(ib0,mlx5_0) near cores 0-1"), std::string::npos);
}

TEST(HwlocProbe, Json) {
  const nlohmann::json j = machine_to_json(probe_machine_xml(gpu_node_xml()));
  EXPECT_EQ(j["node_name"], "gpu01");
  EXPECT_EQ(j["cpus"], 8);
  EXPECT_EQ(j["real_memory_mb"], 131072);
  ASSERT_EQ(j["gpus"].size(), 2u);
  EXPECT_EQ(j["gpus"][1]["device_file"], "/dev/nvidia1");
  EXPECT_EQ(j["gpus"][1]["vendor_id"], "10de");
  EXPECT_EQ(j["nics"][0]["kind"], "infiniband");
  EXPECT_EQ(j["slurm"]["gres_conf"].size(), 2u);
}

TEST(HwlocProbe, BadXmlIsAnInputError) {
  EXPECT_THROW(probe_machine_xml("/nonexistent/node.xml"), InputError);
  EXPECT_THROW(probe_machine_xml(std::string(PACML_SOURCE_DIR) + "/tests/fixtures/tiny.yaml"),
               InputError);
}

TEST(HwlocProbe, ThisMachine) {
  const Machine m = probe_local_machine();
  EXPECT_GE(m.sockets, 1);
  EXPECT_GE(m.cores, 1);
  EXPECT_GE(m.threads, m.cores);
  EXPECT_GT(m.memory_bytes, 0u);
  const std::string line = slurm_node_line(m);
  EXPECT_EQ(line.rfind("NodeName=", 0), 0u);
  EXPECT_NE(line.find(" CPUs=" + std::to_string(m.threads) + " "), std::string::npos);
  EXPECT_EQ(gres_conf_lines(m).size(), m.gpus.size());
}

TEST(SlurmNode, UnevenLayoutLeavesOutSocketShape) {
  Machine m;
  m.hostname = "odd";
  m.sockets = 2;
  m.cores = 3;
  m.threads = 3;
  m.memory_bytes = 3ull << 30;
  EXPECT_FALSE(m.is_uniform());
  EXPECT_EQ(slurm_node_line(m), "NodeName=odd CPUs=3 RealMemory=3072");
  EXPECT_NE(machine_notes(m).at(0).find("set them by hand"), std::string::npos);
  Gpu unknown;
  unknown.pci.bus_id = "0000:05:00.0";
  unknown.pci.vendor_id = 0x1da3;
  m.gpus.push_back(unknown);
  EXPECT_EQ(slurm_node_line(m, "n1"), "NodeName=n1 CPUs=3 RealMemory=3072 Gres=gpu:1");
  EXPECT_EQ(gres_conf_lines(m).at(0).rfind("# NodeName=odd Name=gpu: no device file", 0), 0u);
}

TEST(SlurmNode, ShortHostname) {
  EXPECT_EQ(short_hostname("gpu01.cluster.example"), "gpu01");
  EXPECT_EQ(short_hostname("gpu01"), "gpu01");
  Machine m;
  EXPECT_EQ(slurm_node_name(m), "localhost");
  EXPECT_EQ(slurm_node_name(m, "x"), "x");
}

}  // namespace
}  // namespace pacml::hw

namespace pacml::hw {
namespace {

TEST(ThreadPinning, PinsWorkersRoundRobinOverCores) {
  const ThreadPinner pinner;
  ASSERT_GE(pinner.cores(), 1);
  int pinned = -2, expected = pinner.cores() > 1 ? 1 : 0;
  bool ok = false;
  // On a fresh thread, so the test runner's own thread stays unbound.
  std::thread worker([&] {
    ok = pinner.pin_current_thread(pinner.cores() + 1);  // wraps around to core 1
    pinned = pinner.current_core();
  });
  worker.join();
  if (!ok) GTEST_SKIP() << "the operating system refused to bind a thread";
  EXPECT_EQ(pinned, expected);
  EXPECT_FALSE(pinner.pin_current_thread(-1));
}

}  // namespace
}  // namespace pacml::hw
