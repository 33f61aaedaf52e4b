import sys,os
def extract(ttar,dest):
    lines=open(ttar,encoding='utf-8',errors='surrogateescape').read().split("\n")
    i=0;path=None
    while i<len(lines):
        l=lines[i]
        if l.startswith("Directory: "):
            os.makedirs(os.path.join(dest,l[11:]),exist_ok=True)
        elif l.startswith("Path: "):
            path=l[6:]
        elif l.startswith("Lines: "):
            n=int(l[7:]);body=lines[i+1:i+1+n];i+=n
            data="\n".join(body)+"\n"
            if body and body[-1].endswith("EOF"):
                data="\n".join(body)[:-3]
            data=data.replace("NULLBYTE","\0")
            p=os.path.join(dest,path);os.makedirs(os.path.dirname(p),exist_ok=True)
            open(p,"w",encoding='utf-8',errors='surrogateescape').write(data)
        elif l.startswith("SymlinkTo: "):
            p=os.path.join(dest,path);os.makedirs(os.path.dirname(p),exist_ok=True)
            if os.path.lexists(p): os.remove(p)
            os.symlink(l[11:],p)
        i+=1
extract(sys.argv[1],sys.argv[2])
