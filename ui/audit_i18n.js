// The audit's findings in the reader's language. The backend sends each finding with its stable
// `rule` id and the rule's English `title` and `why` (crates/skilldeck-audit/src/rules.rs);
// English shows those as they are, Chinese takes them from the table below by rule id. A rule
// missing here falls back to the English text, so a new rule never shows blank; the audit
// crate's tests (tests/rules_zh.rs) fail when a rule in RULES has no entry here.

import { language } from "./i18n.js";

/** Each rule's title and why in Chinese, by rule id, in the order of RULES. */
const RULES_ZH = {
  // Hidden text.
  "hidden.tag-chars": {
    title: "不可见的 Unicode 标签字符",
    why: "标签字符（U+E0000–E007F）显示出来什么都没有，模型却会把它们当作文字读取：这是一条用户看不见的指令通道。隐藏的文字已在此解码；正常的技能用不到它们。",
  },
  "hidden.zero-width": {
    title: "单词内的零宽字符",
    why: "零宽字符会把单词拆开，让审阅者或过滤器认不出来，连续出现时还可以编码隐藏数据。请查明文本为何含有它们；重新输入该单词即可去除。",
  },
  "hidden.bidi": {
    title: "双向控制字符",
    why: "双向覆盖和隔离字符会让文本的显示顺序与程序或模型读取的顺序不同（Trojan Source 攻击）。除了从右向左书写的文字，技能中用不到它们。",
  },
  "hidden.html-comment": {
    title: "Markdown 中的 HTML 注释",
    why: "Markdown 查看器会隐藏 HTML 注释，但模型会读到它们。注释的内容显示在这里：请确认其中没有你不希望模型照做的内容。",
  },
  "hidden.markup": {
    title: "渲染后不可见的标记",
    why: "被设为不可见的文本（display:none、字号为 0、hidden 属性）或 Markdown 的链接引用式注释，读者看不到，却会传给模型。请看看它藏了什么。",
  },
  // Instructions aimed at the model against the user.
  "instr.secrecy": {
    title: "要求模型对用户隐瞒",
    why: "要求模型瞒着用户行事、或隐藏自己做过什么的技能，会让模型与它服务的人作对。正当的技能不需要对用户保密。",
  },
  "instr.override": {
    title: "试图推翻模型的其他指令",
    why: "要求模型忽略之前的指令或系统指令，是提示注入（prompt injection）的典型特征。技能只会添加指令，没有理由取消用户的指令。",
  },
  "instr.fake-system": {
    title: "伪造的系统消息或对话模板消息",
    why: "对话模板标记和系统消息标签试图让文字看起来来自系统而不是技能，好让模型更信任它。",
  },
  "instr.permissions": {
    title: "扩大智能体的权限",
    why: "关闭智能体的审批或沙箱，或修改它的设置或 Skilldeck 自己的设置，会让之后的每条指令（无论来自这个技能，还是模型读到的任何文字）获得用户从未授予的权限。",
  },
  "instr.tamper": {
    title: "修改其他技能或智能体的文件夹",
    why: "删除或改写其他技能、或智能体的命令和规则，会改变之后每次会话的行为。技能写入自己的新技能没有问题；动别人的则不行。",
  },
  "instr.exfil-link": {
    title: "把对话数据带出去的链接或图片",
    why: "如果 Markdown 图片或链接的 URL 中填入了对话内容、密钥或文件，它一经渲染就会把这些数据发送到那台主机，而且不经过任何需要批准的工具调用。",
  },
  // Dangerous commands.
  "exec.download-pipe": {
    title: "下载代码并立即运行",
    why: "把下载的内容直接用管道交给 shell，会不经阅读地运行服务器当天发来的任何东西。从知名 HTTPS 主机下载安装脚本很常见；请确认主机确实属于该工具本身，并尽量使用固定版本的发布包。",
  },
  "exec.download-pipe-insecure": {
    title: "运行从裸 IP 地址或明文 HTTP 下载的代码",
    why: "从裸 IP 地址或不经 TLS 获取脚本并用管道交给 shell，正是恶意投放程序（dropper）的做法：没有任何东西能把它和发布者联系起来，传输路径上的任何人都能篡改它。",
  },
  "exec.encoded-powershell": {
    title: "带编码命令的 PowerShell",
    why: "-EncodedCommand 把要运行的脚本藏在 base64 后面，用户和审阅者都无法阅读。请先解码并读过，再决定是否运行。",
  },
  "exec.decode-exec": {
    title: "解码数据后运行",
    why: "先解码 base64 或十六进制数据再执行结果，会把真正的代码藏起来，读技能的人看不到。正当的脚本会以明文提供代码。",
  },
  "exec.reverse-shell": {
    title: "反弹 shell",
    why: "这些代码会把用户机器上的交互式 shell 交给一台远程主机。技能中没有任何正当用途。",
  },
  "exec.destructive": {
    title: "破坏主目录、系统或磁盘",
    why: "递归删除主目录或 /、格式化或覆写磁盘、fork 炸弹，都无法撤销。技能只清理自己的文件，绝不碰这些。",
  },
  "exec.sudoers": {
    title: "免密码给自己 root 权限",
    why: "写入 sudoers 或授予 NOPASSWD: ALL，会让之后的任何命令无需询问就以 root 身份在这台机器上运行。",
  },
  "exec.miner": {
    title: "加密货币挖矿程序",
    why: "挖矿软件或矿池地址会占用用户的机器，替别人赚钱。",
  },
  // Secrets.
  "secrets.read": {
    title: "读取凭据文件",
    why: "代码读取了存放密钥、令牌或登录信息的位置（与沙箱隐藏的是同一份清单）。有些工具会在那里读取自己的配置；请确认它只读取技能需要的内容。",
  },
  "secrets.exfil": {
    title: "读取凭据并向外发送数据",
    why: "同一个脚本或代码块既读取凭据存储，又进行网络通信：这正是窃取凭据的样子。请检查发送了什么、发往哪里。",
  },
  // Persistence.
  "persist.scheduler": {
    title: "安装定时任务",
    why: "crontab 条目或计划任务在会话结束后仍会继续运行，而用户并不知情。需要定时运行的技能应当说明这一点，并让用户自己设置。",
  },
  "persist.service": {
    title: "安装登录项或后台服务",
    why: "systemd 用户单元、launch agent、自启动项和注册表 Run 键会在每次登录时启动程序，即使这个技能早已用完。",
  },
  "persist.shell-startup": {
    title: "向 shell 启动文件追加内容",
    why: "追加到 ~/.bashrc、~/.zshrc 或 PowerShell profile 中的行会在每个新 shell 中运行。添加 PATH 条目很常见；其他内容值得看一看。",
  },
  // Network.
  "net.bare-ip": {
    title: "连接写死的公网 IP 地址",
    why: "用公网 IP 地址代替主机名，会隐藏服务器由谁运营。请查明它属于谁。",
  },
  "net.paste-webhook": {
    title: "发送到粘贴板、webhook 或隧道服务",
    why: "粘贴网站、请求收集器、隧道和聊天 webhook 是投放被盗数据的常见去处，因为任何人都能随手创建一个。请检查发送了什么，以及为什么发到那里。",
  },
  "net.odd-port": {
    title: "连接攻击者常用的端口",
    why: "4444、1337、31337 等端口是漏洞利用工具和反弹 shell 的默认端口；正规服务很少使用它们。",
  },
  // Content.
  "content.executable": {
    title: "编译好的可执行文件或库",
    why: "ELF、Mach-O 或 PE 文件无法阅读或审查，却会以用户的权限运行。优先选择附带源代码的技能，或自己构建该工具。",
  },
  "content.encoded-blob": {
    title: "一长段编码数据",
    why: "文本文件中数 KB 的 base64 或十六进制数据，看不出里面是什么。嵌入的图片没有问题；如果是代码或压缩包，值得解码后读一读。",
  },
  "content.minified": {
    title: "压缩或混淆过的代码",
    why: "挤在超长行里的代码无法审查。打包进来的知名项目库很常见；请确认它名副其实。",
  },
  "content.tools-broad": {
    title: "要求不经询问就能运行任何命令",
    why: "授予整个 shell 或解释器的 allowed-tools，一经批准，技能就能运行任何东西。Skilldeck 会先询问你，这类授权才会生效；尽量使用范围窄的模式。",
  },
  "audit.unreadable": {
    title: "审查无法读取的文件",
    why: "审查无法读取这个文件，因此对它一无所知。请手动检查，或删除它。",
  },
  "audit.truncated": {
    title: "超出审查读取长度的文件",
    why: "只审查了这个文件的开头（其余部分超出了审查对单个文件的读取上限）。技能中很少有这么大的文本文件；请手动检查其余部分。",
  },
};

/** The Chinese entry of finding `f`'s rule, when the language is Chinese and there is one. */
const zh = (f) => (language() === "zh" && Object.hasOwn(RULES_ZH, f.rule) ? RULES_ZH[f.rule] : null);

/** The title of finding `f` in the current language. */
export function findingTitle(f) {
  return zh(f)?.title || f.title;
}

/** Why finding `f` matters, in the current language. */
export function findingWhy(f) {
  return zh(f)?.why || f.why;
}

/** Whether the text shown is a translation (then the English one goes in a tooltip). */
export function findingTranslated(f) {
  return Boolean(zh(f));
}
