"""The web lesson's three JavaScript programs, verbatim, to show beside the Python.

``../shared/seeds/000_*.txt`` teaches with three Node.js programs; the notebooks
show them next to the Python the student writes, so each line of the lesson can
be read against its port. The text is the lesson's own, character for character
(tests/lessons/test_js_programs.py compares it with the seed when the seed is present);
the comments in it are the lesson's Turkish, without diacritics as it wrote them.
"""

from __future__ import annotations

from ..core._check import check_choice

#: ``geri-cekilme.mjs``: the waits and the 24-client histograms (notebook 02).
BACKOFF_JS = r"""// geri-cekilme.mjs — bekleme sureleri ve sarsintinin dagilima etkisi
// Belirlenimci sozde rastgele uretec: ayni tohum ayni diziyi verir.
function uretec(tohum) {
  let a = tohum >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TABAN = 200, CARPAN = 2, TAVAN = 5000;
const ustel = (n) => Math.min(TAVAN, TABAN * CARPAN ** n);

const rastgele = uretec(20260114);
const tamSarsinti = (n) => Math.round(rastgele() * ustel(n));

// Iliskisiz sarsinti: bir sonraki bekleme oncekine bagli araliktan secilir.
let onceki = TABAN;
const iliskisizSarsinti = () => {
  onceki = Math.min(TAVAN, Math.round(TABAN + rastgele() * (onceki * 3 - TABAN)));
  return onceki;
};

console.log("deneme  sabit   üstel   üstel+tavan  tam sarsıntı  ilişkisiz");
for (let n = 0; n < 6; n++) {
  console.log(
    String(n + 1).padEnd(8) +
    String(TABAN).padEnd(8) +
    String(TABAN * CARPAN ** n).padEnd(8) +
    String(ustel(n)).padEnd(13) +
    String(tamSarsinti(n)).padEnd(14) +
    String(iliskisizSarsinti()));
}

// --- Ayni anda dusen istemcilerin uyanma dagilimi --------------------------
const ISTEMCI = 24, DENEME = 3;   // ucuncu denemenin beklemesi: ustel(2) = 800 ms
const kova = (ms) => Math.floor(ms / 200) * 200;

const say = (liste) => {
  const m = new Map();
  for (const v of liste) m.set(v, (m.get(v) ?? 0) + 1);
  return [...m.entries()].sort((a, b) => a[0] - b[0])
    .map(([k, s]) => `${String(k).padStart(4)}ms:${"#".repeat(s)}`);
};

const sarsintisiz = Array.from({ length: ISTEMCI }, () => kova(ustel(DENEME - 1)));
const r2 = uretec(20260114);
const sarsintili = Array.from({ length: ISTEMCI },
  () => kova(Math.round(r2() * ustel(DENEME - 1))));

console.log("\nsarsıntısız (24 istemci, 3. deneme):");
say(sarsintisiz).forEach((s) => console.log("  " + s));
console.log("sarsıntılı  (24 istemci, 3. deneme):");
say(sarsintili).forEach((s) => console.log("  " + s));"""

#: ``yeniden-deneme.mjs``: the retry loop against a local server (notebooks 01 and 03).
RETRY_LOOP_JS = r"""// yeniden-deneme.mjs — yerel sunucuya karsi calisan yeniden deneme dongusu
import http from "node:http";

let olcumIstegi = 0;
const sunucu = http.createServer((istek, yanit) => {
  const yol = new URL(istek.url, "http://127.0.0.1").pathname;
  if (yol === "/olcumler" && istek.method === "GET") {
    olcumIstegi += 1;
    if (olcumIstegi <= 2) {                       // ilk iki istek basarisiz
      yanit.writeHead(503, { "content-type": "application/json" });
      return yanit.end(JSON.stringify({ kod: "erisilemez" }));
    }
    yanit.writeHead(200, { "content-type": "application/json" });
    return yanit.end(JSON.stringify([{ kimlik: "o-114", deger: -4.2 }]));
  }
  if (yol === "/olcumler" && istek.method === "POST") {
    yanit.writeHead(422, { "content-type": "application/json" });
    return yanit.end(JSON.stringify({ kod: "dogrulama" }));
  }
  if (yol === "/rapor") {
    yanit.writeHead(429, { "content-type": "application/json", "retry-after": "2" });
    return yanit.end(JSON.stringify({ kod: "hiz_siniri" }));
  }
  yanit.writeHead(404, { "content-type": "application/json" });
  yanit.end(JSON.stringify({ kod: "yol_yok" }));
});
await new Promise((coz) => sunucu.listen(0, "127.0.0.1", coz));
const TABAN = `http://127.0.0.1:${sunucu.address().port}`;

// --- Bekleme hesabi (belirlenimci) -----------------------------------------
function uretec(tohum) {
  let a = tohum >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rastgele = uretec(20260114);
const bekleme = (n) => Math.round(rastgele() * Math.min(5000, 200 * 2 ** n));

// --- Ilke: hangi sonuc yeniden denenir -------------------------------------
const GUVENLI_YONTEM = new Set(["GET", "HEAD", "OPTIONS"]);
function denenirMi(sonuc, yontem) {
  if (sonuc.tur === "ag") return GUVENLI_YONTEM.has(yontem);  // ulasti mi bilinmiyor
  if (sonuc.tur === "http") return sonuc.durum === 429 || sonuc.durum >= 500;
  return false;                                                // gövde hatasi, iptal
}

// --- Dongu ------------------------------------------------------------------
async function yenidenDene(yol, { yontem = "GET", enCokDeneme = 4, uyu }) {
  const beklemeler = [];
  for (let deneme = 0; deneme < enCokDeneme; deneme++) {
    let sonuc;
    try {
      const yanit = await fetch(TABAN + yol, { method: yontem });
      const govde = await yanit.json();
      sonuc = yanit.ok
        ? { tur: "basari", veri: govde }
        : { tur: "http", durum: yanit.status,
            sunucuOnerisi: Number(yanit.headers.get("retry-after") ?? 0) * 1000 };
    } catch {
      sonuc = { tur: "ag" };
    }
    if (sonuc.tur === "basari") return { sonuc, deneme: deneme + 1, beklemeler };
    if (!denenirMi(sonuc, yontem)) return { sonuc, deneme: deneme + 1, beklemeler };
    if (deneme === enCokDeneme - 1) return { sonuc, deneme: deneme + 1, beklemeler };

    // Sunucunun onerisi hesaplanan beklemeden uzunsa oneri kazanir.
    const sure = Math.max(bekleme(deneme), sonuc.sunucuOnerisi ?? 0);
    beklemeler.push(sure);
    await uyu(sure);
  }
}

// Sinamada gercek beklemek yerine sureler kaydedilir; uygulamada burada
// gercek bir zamanlayici bulunur.
const kayitli = [];
const sahteUyku = (ms) => { kayitli.push(ms); return Promise.resolve(); };

const yaz = (ad, r) => console.log(
  ad.padEnd(24),
  `deneme=${r.deneme}`.padEnd(10),
  `sonuç=${r.sonuc.tur}${r.sonuc.durum ? "/" + r.sonuc.durum : ""}`.padEnd(16),
  `beklemeler=[${r.beklemeler.join(", ")}]`);

yaz("503, sonra başarılı", await yenidenDene("/olcumler", { uyu: sahteUyku }));
yaz("422 (denenmez)", await yenidenDene("/olcumler", { yontem: "POST", uyu: sahteUyku }));
yaz("429 (Retry-After: 2)", await yenidenDene("/rapor", { enCokDeneme: 3, uyu: sahteUyku }));
yaz("404 (denenmez)", await yenidenDene("/yok", { uyu: sahteUyku }));

console.log("sunucuya ulaşan ölçüm isteği:", olcumIstegi);
console.log("kaydedilen tüm beklemeler   :", kayitli.join(", "));

sunucu.close();"""

#: ``devre-kesici.mjs``: the circuit breaker's nine-event trace (notebook 04).
BREAKER_JS = r"""// devre-kesici.mjs — ustuste basarisizlikta istegin hic gonderilmemesi
const ESIK = 3, SOGUMA = 5000;   // 3 ardisik hata; 5000 ms sonra deneme izni

function devreKesici() {
  let durum = "kapali", ardisikHata = 0, acilma = 0;

  return {
    izinVer(simdi) {
      if (durum === "acik" && simdi - acilma >= SOGUMA) durum = "yariAcik";
      return { izin: durum !== "acik", durum };
    },
    bildir(basarili, simdi) {
      if (basarili) { durum = "kapali"; ardisikHata = 0; return durum; }
      ardisikHata += 1;
      if (durum === "yariAcik" || ardisikHata >= ESIK) {
        durum = "acik"; acilma = simdi; ardisikHata = 0;
      }
      return durum;
    },
  };
}

// Mantiksal saat: gercek zaman yerine adim adim ilerler.
const kesici = devreKesici();
const OLAYLAR = [
  [    0, false], [  200, false], [  600, false],   // ucuncu hata devreyi acar
  [  900, false], [ 1500, false],                   // sogumada: istek gitmez
  [ 6000, false],                                   // yari acik deneme, basarisiz
  [ 8000, false],                                   // yeniden sogumada
  [11500, true ],                                   // yari acik deneme, basarili
  [11800, true ],
];

let gonderilen = 0, engellenen = 0;
console.log("saat    izin   önceki durum  sonuç      yeni durum");
for (const [simdi, basarili] of OLAYLAR) {
  const { izin, durum } = kesici.izinVer(simdi);
  if (!izin) {
    engellenen += 1;
    console.log(String(simdi).padEnd(8) + "hayır  " + durum.padEnd(14) +
                "gönderilmedi".padEnd(13) + durum);
    continue;
  }
  gonderilen += 1;
  const yeni = kesici.bildir(basarili, simdi);
  console.log(String(simdi).padEnd(8) + "evet   " + durum.padEnd(14) +
              (basarili ? "başarılı" : "başarısız").padEnd(13) + yeni);
}
console.log(`gönderilen: ${gonderilen}  engellenen: ${engellenen}`);"""

#: Each program by its file name, in the lesson's order.
PROGRAMS: dict[str, str] = {
    "geri-cekilme.mjs": BACKOFF_JS,
    "yeniden-deneme.mjs": RETRY_LOOP_JS,
    "devre-kesici.mjs": BREAKER_JS,
}


class Listing(str):
    """A program's text that shows as a JavaScript code listing in a notebook.

    It is a ``str`` (compare, search and print it as one); ``repr`` is the text
    itself, so the plain-text output (what nbval compares) is the code.
    """

    def __repr__(self) -> str:
        return str(self)

    def _repr_markdown_(self) -> str:
        return f"```javascript\n{self}\n```"


def js_program(name: str, start: str | None = None, end: str | None = None) -> Listing:
    """The lesson's program ``name`` (e.g. ``"devre-kesici.mjs"``), or a verbatim excerpt.

    Use it in a notebook to put the lesson's JavaScript beside the Python. With
    ``start``/``end``, the excerpt runs from the first line containing ``start``
    to the first line after it containing ``end`` (both included): whole lines,
    never edited.

    >>> js_program("yeniden-deneme.mjs", "GUVENLI_YONTEM =", "return false;").splitlines()[0]
    'const GUVENLI_YONTEM = new Set(["GET", "HEAD", "OPTIONS"]);'
    >>> len(js_program("devre-kesici.mjs").splitlines())
    49
    """
    check_choice("name", name, tuple(PROGRAMS))
    lines = PROGRAMS[name].split("\n")
    first = 0
    if start is not None:
        found = [i for i, line in enumerate(lines) if start in line]
        if not found:
            raise ValueError(f"start={start!r}: no line of {name} contains it")
        first = found[0]
    last = len(lines) - 1
    if end is not None:
        found = [i for i, line in enumerate(lines) if end in line and i >= first]
        if not found:
            raise ValueError(f"end={end!r}: no line of {name} after {start!r} contains it")
        last = found[0]
    return Listing("\n".join(lines[first : last + 1]))
