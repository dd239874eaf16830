// @ts-check
// Links in rendered Markdown (the viewer and agent answers): the window never navigates away.
// A link to a file of the skill opens it in the viewer, `#x` scrolls, a web link opens in the
// system browser after the backend checks its scheme, anything else does nothing and says why.

import { showError, toast } from "./dom.js";
import { t } from "./i18n.js";

import { invoke } from "./api.js";

/** A heading's anchor as Markdown renderers make it: lowercase words joined by hyphens. */
export function slug(text) {
  return text.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(/\s+/g, "-");
}

/** Scrolls `container` to the element `#anchor` names, by id or by its heading's text. */
export function scrollToAnchor(container, anchor) {
  const wanted = decodeURIComponent(anchor);
  const target = [...container.querySelectorAll("[id]")].find((e) => e.id === wanted)
    || [...container.querySelectorAll("h1, h2, h3, h4, h5, h6")].find((h) => slug(h.textContent) === slug(wanted));
  if (target) target.scrollIntoView({ block: "start" });
  else toast(t("linkNoAnchor", wanted));
  return Boolean(target);
}

/** `rel` resolved against the folder of `from` inside a skill, or null when it leaves the skill. */
export function resolveInSkill(from, rel) {
  const parts = from.split("/").slice(0, -1);
  for (const p of rel.split("/")) {
    if (p === "" || p === ".") continue;
    if (p === "..") {
      if (!parts.length) return null;
      parts.pop();
    } else {
      parts.push(p);
    }
  }
  return parts.join("/");
}

/**
 * Catches every link click in the window. `skillContext(link)` gives `{file, files, open}` when
 * the link is in a skill's rendered file (open(path, anchor) shows it), or null elsewhere.
 */
export function catchLinks(skillContext) {
  document.addEventListener("click", (e) => {
    const target = /** @type {Element} */ (e.target);
    const a = target.closest && target.closest("a");
    if (!a) return;
    e.preventDefault();
    const href = (a.getAttribute("href") || "").trim();
    if (!href) {
      toast(t("linkEmpty"));
      return;
    }
    if (href.startsWith("#")) {
      scrollToAnchor(a.closest(".markdown") || document.body, href.slice(1));
      return;
    }
    const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(href);
    if (scheme || href.startsWith("//")) {
      const name = scheme ? scheme[1].toLowerCase() : "";
      if (!["http", "https", "mailto"].includes(name)) {
        toast(t("linkRefused", name || href));
        return;
      }
      invoke("open_link", { url: href }).then(() => toast(t("linkOpened", href))).catch(showError);
      return;
    }
    const ctx = skillContext(a);
    if (!ctx) {
      toast(t("linkNoSkill", href));
      return;
    }
    const [pathPart, anchor] = href.split("#", 2);
    const path = resolveInSkill(ctx.file, decodeURIComponent(pathPart.split("?")[0]));
    if (path === null) toast(t("linkOutside", href));
    else if (path === "" || path === ctx.file) {
      if (anchor) scrollToAnchor(a.closest(".markdown") || document.body, anchor);
    } else if (ctx.files.includes(path)) ctx.open(path, anchor);
    else toast(t("linkMissing", path));
  }, true);
}
