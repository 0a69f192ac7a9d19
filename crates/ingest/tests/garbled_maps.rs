//! Fonts whose `/ToUnicode` map yields garbage (issue 55): the glyphs are drawn right, so a reader sees text, but
//! every extractor decodes what the map says. Pages are written here by hand: Helvetica with WinAnsiEncoding, its
//! map sending each letter to another letter (a shifted alphabet, a shuffled one), or glyph numbers to code points
//! as they are (letters of several scripts), or to punctuation. Each such page gets the "garbled" warning; pages
//! of real text in English, other languages and other scripts do not.

use ragsift_ingest::extract::{extract_file, looks_garbled, Limits};
use std::path::Path;
use std::time::Duration;

const LIMITS: Limits = Limits {
    max_file_mb: 50,
    timeout: Duration::from_secs(60),
};

const LINES: [&str; 6] = [
    "The battery keeps its charge for two full days of normal use.",
    "Charging it takes about three hours with the supplied cable.",
    "Keep the device away from water, dust and direct sunlight.",
    "Our warranty covers defects in materials for one whole year.",
    "Send the receipt with any claim to the nearest service centre.",
    "Repairs outside the warranty are quoted before any work starts.",
];

/// A `/ToUnicode` CMap sending each one-byte code to `to(code)` (codes 0x21–0x7E; the space stays a space).
fn cmap(to: impl Fn(u8) -> char) -> Vec<u8> {
    let mut pairs = String::new();
    for code in 0x21u8..=0x7E {
        let c = to(code);
        let mut units = [0u16; 2];
        let hex: String = c.encode_utf16(&mut units).iter().map(|u| format!("{u:04X}")).collect();
        pairs.push_str(&format!("<{code:02X}> <{hex}>\n"));
    }
    format!(
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n/CIDSystemInfo << /Registry (Adobe) \
         /Ordering (UCS) /Supplement 0 >> def\n/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n\
         1 begincodespacerange\n<00> <FF>\nendcodespacerange\n1 beginbfchar\n<20> <0020>\nendbfchar\n\
         94 beginbfchar\n{pairs}endbfchar\nendcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"
    )
    .into_bytes()
}

/// A PDF of one page per map (`None`: no map, the font's encoding decodes), each drawing [`LINES`] in Helvetica.
fn write_pdf(path: &Path, maps: &[Option<Vec<u8>>]) {
    let mut objects: Vec<Vec<u8>> = Vec::new();
    // 1: catalog, 2: pages; then per page: font, map, content, page.
    let n = maps.len();
    let page_ids: Vec<usize> = (0..n).map(|i| 3 + i * 4 + 3).collect();
    objects.push(b"<< /Type /Catalog /Pages 2 0 R >>".to_vec());
    let kids: String = page_ids.iter().map(|id| format!("{id} 0 R ")).collect();
    objects.push(format!("<< /Type /Pages /Kids [{kids}] /Count {n} >>").into_bytes());
    let mut content = b"BT /F1 14 Tf 72 720 Td 20 TL\n".to_vec();
    for line in LINES {
        content.extend_from_slice(format!("({line}) Tj T*\n").as_bytes());
    }
    content.extend_from_slice(b"ET\n");
    for (i, map) in maps.iter().enumerate() {
        let base = 3 + i * 4;
        let to_unicode = map
            .as_ref()
            .map_or(String::new(), |_| format!(" /ToUnicode {} 0 R", base + 1));
        objects.push(
            format!("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding{to_unicode} >>")
                .into_bytes(),
        );
        let map = map.clone().unwrap_or_default();
        let mut stream = format!("<< /Length {} >>\nstream\n", map.len()).into_bytes();
        stream.extend_from_slice(&map);
        stream.extend_from_slice(b"\nendstream");
        objects.push(stream);
        let mut stream = format!("<< /Length {} >>\nstream\n", content.len()).into_bytes();
        stream.extend_from_slice(&content);
        stream.extend_from_slice(b"\nendstream");
        objects.push(stream);
        objects.push(
            format!(
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 {base} 0 R >> >> \
                 /Contents {} 0 R >>",
                base + 2
            )
            .into_bytes(),
        );
    }
    std::fs::write(path, ragsift_ingest::synth::assemble(&objects)).unwrap();
}

/// Letters sent to other letters by `alphabet` (what `a`..`z` become; capitals alike), other codes kept.
fn letters_to(alphabet: &'static str) -> impl Fn(u8) -> char {
    move |code| {
        let c = code as char;
        let at = |c: char| alphabet.as_bytes()[(c.to_ascii_lowercase() as u8 - b'a') as usize] as char;
        match c {
            'a'..='z' => at(c),
            'A'..='Z' => at(c).to_ascii_uppercase(),
            _ => c,
        }
    }
}

#[test]
fn garbage_from_a_to_unicode_map_gets_the_garbled_warning() {
    let dir = tempfile::tempdir().unwrap();
    let pdf = dir.path().join("garbage_maps.pdf");
    let maps = vec![
        // 1: the font's own encoding.
        None,
        // 2: a shifted alphabet (every letter 13 on).
        Some(cmap(letters_to("nopqrstuvwxyzabcdefghijklm"))),
        // 3: a shuffled one (the keyboard's rows).
        Some(cmap(letters_to("qwertyuiopasdfghjklzxcvbnm"))),
        // 4: glyph numbers as code points in a font's glyph order: letters of Latin, Greek, Cyrillic, Armenian.
        Some(cmap(|code| char::from_u32(0x100 + (code as u32 - 0x21) * 13).unwrap())),
        // 5: letters sent to Latin-1's punctuation and signs.
        Some(cmap(|code| char::from_u32(0xA1 + (code as u32 * 7) % 0x1F).unwrap())),
    ];
    write_pdf(&pdf, &maps);
    let ex = extract_file(&pdf, LIMITS).unwrap();
    assert_eq!(ex.pages.len(), 5);
    assert!(
        ex.pages[0].text.contains("The battery keeps its charge"),
        "{}",
        ex.pages[0].text
    );
    for page in &ex.pages[1..] {
        assert!(
            !page.text.contains("battery"),
            "page {} decodes by its map: {}",
            page.number,
            page.text
        );
    }
    assert_eq!(ex.garbled_pages, [2, 3, 4, 5], "{:#?}", ex.pages);
    let warning = ex.warning().unwrap();
    assert!(warning.contains("pages 2–5 look garbled"), "{warning}");
}

/// Real text is not garbage: every page of the real set's truth (28 documents: papers, manuals, datasheets,
/// reference cards, tables of contents), other languages, other scripts, code and formulas.
#[test]
fn real_text_in_any_language_or_script_is_not_called_garbled() {
    let dir = ragsift_test_support::files::repo().join("fixtures/real/truth");
    let mut judged = 0;
    for entry in std::fs::read_dir(&dir).unwrap().flatten() {
        let truth: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(entry.path()).unwrap()).unwrap();
        for (number, page) in truth["pages"].as_object().unwrap() {
            let text = page["text"].as_str().or(page.as_str()).unwrap_or_default();
            assert!(!looks_garbled(text), "{:?} page {number}:\n{text}", entry.file_name());
            judged += 1;
        }
    }
    assert!(judged >= 45, "{judged} pages");
    let others = [
        "Die Batterie hält ihre Ladung für zwei volle Tage. Das Aufladen dauert mit dem mitgelieferten Kabel etwa \
         drei Stunden. Halten Sie das Gerät von Wasser und direktem Sonnenlicht fern. Unsere Garantie deckt \
         Material- und Verarbeitungsfehler für ein Jahr ab.",
        "La batterie garde sa charge pendant deux jours complets. La recharge prend environ trois heures avec le \
         câble fourni. Tenez l'appareil à l'écart de l'eau et de la lumière directe du soleil.",
        "Bateria utrzymuje ładunek przez dwa pełne dni użytkowania. Ładowanie trwa około trzech godzin przy użyciu \
         dołączonego kabla. Trzymaj urządzenie z dala od wody i bezpośredniego światła słonecznego.",
        "Baterie vydrží nabitá dva celé dny používání. Nabíjení trvá přibližně tři hodiny s dodaným kabelem. \
         Chraňte zařízení před vodou a přímým slunečním světlem. Naše záruka se vztahuje na vady materiálu.",
        "Καλημέρα κόσμε! Ευχαριστώ πολύ. Το έγγραφο περιγράφει τη διαδικασία εγκατάστασης του συστήματος και τις \
         ρυθμίσεις του δικτύου. Η μπαταρία κρατά τη φόρτισή της για δύο ολόκληρες ημέρες.",
        "Батарея держит заряд в течение двух полных дней использования. Зарядка занимает около трех часов с \
         помощью прилагаемого кабеля. Держите устройство подальше от воды и прямых солнечных лучей.",
        &"本文档描述了系统的安装过程和网络设置。电池可以保持两天的电量。使用附带的电缆充电大约需要三个小时。\
          请将设备远离水和阳光直射。保修涵盖一年内的材料缺陷。请将收据连同任何索赔寄往服务中心。"
            .repeat(3),
        "VCC GND SDA SCL NC INT1 INT2 CS SDO SDI SPI I2C GPIO RST PWM TX RX DRDY VDD VDDIO VSS AGND DGND",
        "The output is 10 μA at 5 kΩ with a 3 μs rise time; use 4.7 μF and 100 nF capacitors on the μC supply pin, \
         and keep the ESR under 50 mΩ at 100 kHz for the regulator to stay stable over the full range.",
        "fn main() { let mut v: Vec<u32> = (0..10).map(|x| x * x).collect(); if v.len() > 3 { v[0] += 1; } \
         println!(\"{:?}\", &v[..]); } int f(int *p, size_t n) { for (size_t i = 0; i < n; ++i) { p[i] = \
         (p[i] << 2) | 1; } return n > 0 ? p[0] : -1; }",
        "∑ i = 1 n x i 2 ≤ ( max i | x i | ) 2 · n ∫ 0 ∞ e − x 2 d x = √ π / 2 , ∀ ε > 0 ∃ δ > 0 : | f ( x ) − \
         f ( y ) | < ε",
    ];
    // Persian as pdftotext gives it: letters and their presentation forms in one word (one script, two blocks).
    let persian: String = [
        [0x631, 0xFECB, 0xFE8E, 0xFBFE, 0xFE96],
        [0x62F, 0xFE8E, 0xFEE7, 0xFEB8, 0xFB94],
        [0xFE8D, 0xFBFE, 0xFEE8, 0xFE9F, 0xFE8E],
    ]
    .iter()
    .map(|w| w.iter().filter_map(|&c| char::from_u32(c)).collect::<String>())
    .collect::<Vec<_>>()
    .join(" ")
    .repeat(6);
    // Chinese with Latin words and formulas, Greek letters with Latin indices, as a page of exercises has them.
    let formulas = "设 X 和 Y 是各有均值 mx , my 和方差 σx2 , σy2 的独立高斯随机变量，U = X + Y, V = X − Y。\
                    试求 I(U; V)。解：ΛU,V 是协方差矩阵，h(U) = log((2πe)2 |ΛU,V|)，长期JWT与临时JWT。\
                    The regulator holds ΔVout within 2 mV over the whole load range when ΔIload steps by 100 mA, \
                    and the reference draws 10 μA; the Kα lines of copper are used to calibrate the detector \
                    before each measurement run, and the noise density stays under 40 nV per root hertz.";
    // A reference list of calls, words repeated down the page.
    let calls = "Wraps hb_version. shape (font, buffer[, options]) Wraps hb_shape. Class Blob. Blob.new (data) \
                 Wraps hb_blob_create. Blob.new_from_file (filename) Wraps hb_blob_create_from_file. Blob:length () \
                 Wraps hb_blob_get_length. Class Face. Face.new_from_blob (blob, font_index) Wraps hb_face_create. \
                 Face:collect_unicodes () Wraps hb_face_collect_unicodes. Face:get_glyph_count () Wraps \
                 hb_face_get_glyph_count. Face:get_table (tag) Wraps hb_face_reference_table.";
    for text in others.iter().copied().chain([persian.as_str(), formulas, calls]) {
        assert!(!looks_garbled(text), "{text}");
    }
}

/// The installed documentation (TeX Live's, when the machine has it: papers, manuals, slides and exams in many
/// languages and scripts) as pdftotext reads it: no page is called garbled. Heavy: about 2,700 pages.
#[test]
fn heavy_no_page_of_the_installed_documentation_is_called_garbled() {
    let mut pdfs = Vec::new();
    let mut dirs = vec![std::path::PathBuf::from("/usr/share/doc")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => dirs.push(path),
                Ok(t) if t.is_file() && path.extension().is_some_and(|e| e == "pdf") => pdfs.push(path),
                _ => {}
            }
        }
    }
    pdfs.sort();
    if pdfs.is_empty() || !ragsift_ingest::extract::poppler_available() {
        println!("no PDFs under /usr/share/doc, or no pdftotext: nothing to check");
        return;
    }
    // Every n-th file, about 700 of them, the first six pages of each.
    let step = pdfs.len().div_ceil(700);
    let (mut pages, mut flagged) = (0, Vec::new());
    for pdf in pdfs.iter().step_by(step) {
        let Ok(out) = std::process::Command::new("pdftotext")
            .args(["-l", "6", "-enc", "UTF-8"])
            .arg(pdf)
            .arg("-")
            .output()
        else {
            continue;
        };
        let text = String::from_utf8_lossy(&out.stdout);
        for (i, page) in text.split('\u{c}').enumerate() {
            if page.trim().len() < 100 {
                continue;
            }
            pages += 1;
            if looks_garbled(page) {
                flagged.push(format!("{} p{}", pdf.display(), i + 1));
            }
        }
    }
    println!("{pages} pages of {} files judged", pdfs.len().div_ceil(step));
    assert!(
        flagged.is_empty(),
        "{} of {pages} pages called garbled: {flagged:#?}",
        flagged.len()
    );
}
