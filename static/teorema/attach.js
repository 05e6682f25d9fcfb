// Files on the ask and follow-up forms: the picker, drag-and-drop, pasting an image; a chip per file
// (name, size, kind, remove) and the limits checked before sending. The server checks everything
// again: this only spares a round trip for a file that would be refused for its size or number.
(() => {
  "use strict";
  const KINDS = [
    [/\.pdf$/i, "PDF"], [/\.docx$/i, "Word"], [/\.(md|markdown)$/i, "Markdown"], [/\.csv$/i, "CSV"],
    [/\.(tsv|tab)$/i, "TSV"], [/\.json$/i, "JSON"], [/\.(txt|log)$/i, "text"],
  ];
  const PREVIEW_BYTES = 5 * 1024 * 1024; // larger images get no preview: reading them costs the page
  const kindOf = (file) => {
    if (file.type.startsWith("image/")) return "image";
    const found = KINDS.find(([pattern]) => pattern.test(file.name));
    return found ? found[1] : "text or code";
  };
  const size = (bytes) =>
    bytes < 1024 ? `${bytes} B` : bytes < 1048576 ? `${Math.round(bytes / 1024)} KB` : `${(bytes / 1048576).toFixed(1)} MB`;

  const enhance = (box) => {
    const input = box.querySelector("input[type=file]");
    const chips = box.querySelector(".attach-chips");
    const problem = box.querySelector(".attach-problem");
    const form = box.closest("form");
    const limits = { files: +box.dataset.maxFiles, bytes: +box.dataset.maxBytes, total: +box.dataset.maxTotal };
    let files = [];
    let pasted = 0;

    const problems = () => {
      const found = [];
      if (files.length > limits.files) found.push(`${files.length} files: at most ${limits.files} are accepted.`);
      for (const file of files) {
        if (file.size > limits.bytes) found.push(`${file.name} is ${size(file.size)}: a file may be at most ${size(limits.bytes)}.`);
      }
      const total = files.reduce((sum, file) => sum + file.size, 0);
      if (total > limits.total) found.push(`${size(total)} in all: at most ${size(limits.total)} together.`);
      return found;
    };

    const chip = (file, index) => {
      const item = document.createElement("li");
      item.className = "attach-chip";
      if (file.type.startsWith("image/") && file.size <= PREVIEW_BYTES) {
        const picture = document.createElement("img");
        picture.alt = "";
        picture.className = "attach-preview";
        const reader = new FileReader(); // a data: URL: the page's policy allows no blob: images
        reader.onload = () => { picture.src = reader.result; };
        reader.readAsDataURL(file);
        item.append(picture);
      }
      const name = document.createElement("span");
      name.className = "attach-name";
      name.textContent = file.name;
      const facts = document.createElement("span");
      facts.className = "attach-facts";
      facts.textContent = `${size(file.size)} · ${kindOf(file)}`;
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "attach-remove";
      remove.textContent = "×";
      remove.setAttribute("aria-label", `Remove ${file.name}`);
      remove.addEventListener("click", () => { files.splice(index, 1); sync(); input.focus(); });
      item.append(name, facts, remove);
      return item;
    };

    const sync = () => {
      const transfer = new DataTransfer();
      files.forEach((file) => transfer.items.add(file));
      input.files = transfer.files;
      chips.replaceChildren(...files.map(chip));
      const found = problems();
      problem.textContent = found.join(" ");
      problem.hidden = !found.length;
      box.classList.toggle("over", found.length > 0);
      warnBlind();
      estimate();
    };
    // The panel chosen: the ask page's radio, or the follow-up's select.
    const chosenPanel = () => {
      const radio = form.querySelector("input[name=panel]:checked");
      const select = form.querySelector("select[name=panel]");
      return radio || (select ? select.selectedOptions[0] : null);
    };
    // An image, and a panel none of whose voices can see one: said before sending (roster/readiness.py words it).
    const blind = box.querySelector(".attach-blind");
    const warnBlind = () => {
      const panel = chosenPanel();
      const said = panel ? panel.dataset.blind : "";
      const images = files.some((file) => file.type.startsWith("image/"));
      blind.textContent = images && said ? said : "";
      blind.hidden = !blind.textContent;
    };
    // What the files add to the run, before sending: their tokens (an image's from its size, a PDF's
    // from its pages, text from its bytes) times what a token costs the panel's calls that read them
    // (readiness.file_rates: natively where a model reads the kind, else as text). The run's own
    // figures count them after, from the providers' usage.
    const cost = box.querySelector(".attach-cost");
    const side = +box.dataset.imageSide;
    const textCap = Math.ceil(+box.dataset.textChars / 4);
    const imageTokens = async (file) => {
      try {
        const bitmap = await createImageBitmap(file);
        const scale = Math.min(1, side / Math.max(bitmap.width, bitmap.height));
        const tokens = Math.ceil((bitmap.width * scale * bitmap.height * scale) / 750);
        bitmap.close();
        return Math.min(tokens, 1600);
      } catch (error) {
        return 1600; // an image the browser cannot read: counted at most
      }
    };
    const pdfPages = async (file) => {
      const ends = [file.slice(0, 262144), file.slice(Math.max(0, file.size - 262144))];
      const text = (await Promise.all(ends.map((part) => part.text()))).join("\n");
      const counts = [...text.matchAll(/\/Type\s*\/Pages\b[^>]*?\/Count\s+(\d+)/g)].map((m) => +m[1]);
      return counts.length ? Math.max(...counts) : Math.max(1, Math.round(file.size / 60000));
    };
    const tokensOf = async (file) => {
      const kind = kindOf(file);
      if (kind === "image") return { image: await imageTokens(file) };
      if (kind === "PDF") {
        const pages = await pdfPages(file);
        return { pdfText: Math.min(pages * 500, textCap), pdfNative: pages * 1500 };
      }
      return { text: Math.min(Math.ceil(file.size / (kind === "Word" ? 8 : 4)), textCap) };
    };
    let estimating = 0;
    const estimate = async () => {
      const panel = chosenPanel();
      const rates = panel && panel.dataset.fileRates ? JSON.parse(panel.dataset.fileRates) : null;
      const mine = ++estimating;
      const priced = files.filter((file) => file.size <= limits.bytes); // one refused for its size is never sent
      const found = await Promise.all(priced.map(tokensOf));
      if (mine !== estimating) return; // files or the panel changed meanwhile: a later estimate says it
      if (!priced.length || !rates) {
        cost.hidden = true;
        return;
      }
      const sum = (key) => found.reduce((total, tokens) => total + (tokens[key] || 0), 0);
      const dollars = sum("text") * rates.text + sum("image") * rates.image
        + sum("pdfNative") * rates.pdf_native + sum("pdfText") * rates.pdf_text;
      const tokens = sum("text") + (rates.image ? sum("image") : 0) + sum("pdfText"); // an unseen image is a line
      if (!tokens) {
        cost.hidden = true; // only images no voice can see: the warning above says what they get
        return;
      }
      const price = dollars < 0.0005 ? "no cost on this panel's models" : `about $${dollars.toFixed(3)} more for this panel`;
      // Who gets a file otherwise than natively, by the engine's rule (readiness.file_rates).
      const kinds = new Set(priced.map(kindOf));
      const short = [
        kinds.has("image") && rates.unseen.length ? ` Cannot see the images: ${rates.unseen.join(", ")}.` : "",
        kinds.has("PDF") && rates.pdf_as_text.length ? ` Read the PDFs as text: ${rates.pdf_as_text.join(", ")}.` : "",
      ].join("");
      cost.textContent = `The files add about ${tokens.toLocaleString("en")} tokens to each of the ${rates.calls} calls `
        + `that read the question (more where a model reads a PDF natively): ${price}. The run counts them exactly.${short}`;
      cost.hidden = false;
    };
    form.addEventListener("change", (event) => {
      if (event.target.name === "panel") { warnBlind(); estimate(); }
    });
    const add = (given) => { files = files.concat([...given]); sync(); };

    input.addEventListener("change", () => add(input.files));
    for (const kind of ["dragenter", "dragover"]) {
      box.addEventListener(kind, (event) => { event.preventDefault(); box.classList.add("dragging"); });
    }
    box.addEventListener("dragleave", () => box.classList.remove("dragging"));
    box.addEventListener("drop", (event) => {
      event.preventDefault();
      box.classList.remove("dragging");
      if (event.dataTransfer && event.dataTransfer.files.length) add(event.dataTransfer.files);
    });
    form.addEventListener("paste", (event) => {
      const images = [...(event.clipboardData ? event.clipboardData.items : [])]
        .filter((item) => item.kind === "file" && item.type.startsWith("image/"))
        .map((item) => item.getAsFile())
        .filter(Boolean);
      if (!images.length) return; // text pastes into the field as usual
      event.preventDefault();
      add(images.map((image) => {
        pasted += 1;
        const suffix = image.type.split("/")[1] || "png";
        return new File([image], `pasted-image-${pasted}.${suffix}`, { type: image.type });
      }));
    });
    form.addEventListener("submit", (event) => {
      if (problems().length) {
        event.preventDefault();
        event.stopImmediatePropagation();
        problem.focus();
      }
    }, true);
  };

  document.querySelectorAll("[data-attach]").forEach(enhance);
})();
