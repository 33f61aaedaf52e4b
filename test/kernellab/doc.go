// Package kernellab boots Debian's stock kernel under qemu (software
// emulation, TCG) to test nastune against real md RAID, bonding, nfsd and
// dm-crypt, which the kernels of the test machines lack, and its disk-health
// probe against qemu's emulated AHCI and NVMe disks with the real smartctl.
//
// The lab, in order:
//
//  1. Kernel: asks apt which linux-image-6.1.0-*-amd64 package
//     linux-image-amd64 depends on, fetches it with `apt-get download` into
//     a cache folder ($NASTUNE_LAB_CACHE, else ~/.cache/nastune-kernellab,
//     else /var/tmp/nastune-kernellab) and unpacks it with dpkg-deb. depmod
//     builds modules.dep for the package's tree.
//  2. Initramfs (Build): busybox-static with its applets, the modules the
//     scenarios need with every dependency from modules.dep (depmod run
//     again on the subset, so kmod's modprobe works in the guest), mdadm,
//     iproute2's ip, ethtool, cryptsetup, dmsetup, mkfs.xfs and kmod with
//     the shared libraries ldd names, a static nastune (CGO_ENABLED=0),
//     nfs-common's stock /etc/nfs.conf, nfs-kernel-server's rpc.nfsd,
//     rpc.mountd and exportfs and rpcbind's rpcbind and rpcinfo (NFSv3
//     for the nfsshare scenario's nastune bench share),
//     smartmontools' smartctl (off PATH, at /opt/smartmontools/sbin) and
//     hdparm from their Debian packages, and the guest scripts of guest/.
//     Written by a small cpio "newc" writer, uncompressed.
//  3. Boot: qemu-system-x86_64 -accel tcg -cpu max -m 1024 -smp 2 with
//     sparse virtio disks named by serial (/sys/block/vdX/serial): 12 md
//     members of 4 TB, a small dm-crypt disk and the results disk; two
//     AHCI disks and an NVMe disk for the smart scenario.
//  4. Guest: guest/init mounts /proc, /sys, /dev and runs guest/scenarios.sh,
//     which records each step in /results/STEP (nastune audit -o json,
//     plan -o json, apply/undo output, sysfs read-backs, nastune snapshot),
//     writes /results as a tar stream onto the results disk and powers off.
//  5. Host: the test reads the tar back and asserts per step.
//
// `make lab` boots the same guest with a shell on the console instead.
package kernellab
