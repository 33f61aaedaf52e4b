package rules

import (
	"github.com/nastune/nastune/internal/facts"
	"github.com/nastune/nastune/internal/rule"
)

// Disk health: SMART and the kernel log, the hardware before the knobs
// (KNOWLEDGE §17). A healthy disk gets no warning; old age alone is info.
var healthRules = []rule.Rule{
	{Meta: metaSMARTFailed, Check: checkSMARTFailed},
	{Meta: metaMedia, Check: checkMedia},
	{Meta: metaWear, Check: checkWear},
	{Meta: metaLink, Check: checkLink},
	{Meta: metaUSBResets, Check: checkUSBResets},
	{Meta: metaIOErrors, Check: checkIOErrors},
	{Meta: metaSMR, Check: checkSMR},
	{Meta: metaERC, Check: checkERC},
	{Meta: metaHot, Check: checkHot},
	{Meta: metaNoSelfTest, Check: checkNoSelfTest},
	{Meta: metaOldAge, Check: checkOldAge},
}

const (
	refSmartctl    = "https://www.smartmontools.org/browser/trunk/smartmontools/smartctl.8.in"
	refBackblaze   = "https://www.backblaze.com/blog/what-smart-stats-indicate-hard-drive-failures/"
	refGoogleFAST  = "https://research.google/pubs/failure-trends-in-a-large-disk-drive-population/"
	refLibataEH    = "https://archive.kernel.org/oldwiki/ata.wiki.kernel.org/index.php/Libata_error_messages.html"
	refNVMeSpec    = "https://nvmexpress.org/specifications/"
	refTimeoutMism = "https://raid.wiki.kernel.org/index.php/Timeout_Mismatch"
	refKernelParam = "https://docs.kernel.org/admin-guide/kernel-parameters.html"
	refSmartd      = "https://www.smartmontools.org/browser/trunk/smartmontools/smartd.conf.5.in"
	refWDSMR       = "https://blog.westerndigital.com/wd-red-nas-drives/"
	refZonedSysfs  = "https://docs.kernel.org/block/queue-sysfs.html"
)

const pointless = " Tuning this disk (read-ahead, scheduler, queue depth) is pointless until then."

// hdd reports whether d spins (SMART's protocol and rotation rate, else
// the queue; see facts.BlockDevice.Spins).
func hdd(d facts.BlockDevice) bool {
	r := d.Spins()
	return r != nil && *r
}
