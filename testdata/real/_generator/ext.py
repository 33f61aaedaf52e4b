import re,sys,subprocess,os
def show(repo,path):
    return subprocess.run(["git","-C",f"/work/.mirror/{repo}/repo","show",f"HEAD:{path}"],capture_output=True,text=True).stdout
def pyvars(repo,path,tag):
    s=show(repo,path)
    for m in re.finditer(r'^([A-Z_0-9a-z]+)\s*=\s*(?:r|b)?"""\n?(.*?)"""',s,re.S|re.M):
        name,body=m.group(1),m.group(2)
        os.makedirs(tag,exist_ok=True)
        open(f"{tag}/{name}","w").write(body.strip("\n")+"\n")
def govars(repo,path,tag):
    s=show(repo,path)
    for m in re.finditer(r'([A-Za-z_0-9]+)\s*:?=\s*`(.*?)`',s,re.S):
        name,body=m.group(1),m.group(2)
        if body.count("\n")<2: continue
        os.makedirs(tag,exist_ok=True)
        open(f"{tag}/{name}","w").write(body.strip("\n")+"\n")
I="RedHatInsights+insights-core"
pyvars(I,"insights/tests/parsers/test_mdstat.py","ins-md")
pyvars(I,"insights/tests/parsers/test_bond.py","ins-bond")
pyvars(I,"insights/tests/parsers/test_ethtool.py","ins-eth")
pyvars(I,"insights/tests/parsers/test_samba.py","ins-smb")
T="influxdata+telegraf"
govars(T,"plugins/inputs/mdstat/mdstat_test.go","tg-md")
govars(T,"plugins/inputs/bond/bond_test.go","tg-bond")
govars("prometheus+procfs","mdstat_test.go","pf-md")
govars("prometheus+procfs","bonding_test.go","pf-bond")
