"""Spanish and French words in an English request, in the English words the planner reads.

A bilingual person drops words of their other language into a request: "Crea una tarea: call
Frances mañana, prioridad alta", "Put un rappel for lundi à 14h", "45 mil dólares". The
words that carry a CRM request (the modules, the verbs, the fields and their common values,
days, times and amounts) are few; each is put in English, word for word. Names, titles and
the texts of e-mails are left as they were typed: only listed words change, and only in a
message that has at least two of them (one may be a name or an English word).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

#: phrases first (longest first), then words; each a pattern (matched whole, any case) and
#: its English
_PHRASES: tuple[tuple[str, str | Callable[[re.Match[str]], str]], ...] = (
    # when
    (r"pasado\s+mañana|après-demain|apres-demain", "the day after tomorrow"),
    (r"(?:de\s+)?la\s+semana\s+que\s+viene|la\s+pr[oó]xima\s+semana|la\s+semaine\s+prochaine",
     "next week"),
    (r"del\s+mes\s+que\s+viene|del\s+pr[oó]ximo\s+mes|du\s+mois\s+prochain", "of next month"),
    (r"el\s+mes\s+que\s+viene|el\s+pr[oó]ximo\s+mes|le\s+mois\s+prochain", "next month"),
    (r"a\s+las\s+(\d{1,2})(?:h(\d\d)?)?", lambda m: f"at {m[1]}:{m[2] or '00'}"),
    (r"à\s+(\d{1,2})h(\d\d)?", lambda m: f"at {m[1]}:{m[2] or '00'}"),
    (r"(\d{1,2})h(\d\d)?", lambda m: f"{m[1]}:{m[2] or '00'}"),
    # sorts and ranges
    (r"del\s+m[aá]s\s+grande\s+al\s+m[aá]s\s+peque[nñ]o|du\s+plus\s+grand\s+au\s+plus\s+petit",
     "largest first"),
    (r"del\s+m[aá]s\s+peque[nñ]o\s+al\s+m[aá]s\s+grande|du\s+plus\s+petit\s+au\s+plus\s+grand",
     "smallest first"),
    (r"entre\s+(?=\S+(?:\s+mil(?:le)?)?\s+(?:y|et)\s+)", "between "),
    # fields
    (r"fecha\s+de\s+cierre|date\s+de\s+cl[oô]ture", "close date"),
    (r"fecha\s+(?:l[ií]mite|de\s+vencimiento|de\s+entrega)|date\s+(?:limite|d'[ée]ch[ée]ance)",
     "due date"),
    (r"correo\s+electr[oó]nico|courrier\s+[ée]lectronique", "email"),
    (r"en\s+curso|en\s+cours", "in progress"),
    (r"por\s+favor|s'il\s+(?:vous|te)\s+pla[iî]t", "please"),
    (r"todos\s+los|todas\s+las|tous\s+les|toutes\s+les", "all the"),
    (r"ponle\s+el\s+tag", "tag them"),
)  # fmt: skip

_WORDS: dict[str, str] = {
    # modules
    "tarea": "task", "tareas": "tasks", "tâche": "task", "tâches": "tasks", "tache": "task",
    "taches": "tasks", "contacto": "contact", "contactos": "contacts", "empresa": "company",
    "empresas": "companies", "compañía": "company", "entreprise": "company",
    "entreprises": "companies", "société": "company", "oportunidad": "deal",
    "oportunidades": "deals", "opportunité": "deal", "affaire": "deal", "affaires": "deals",
    "correo": "email", "correos": "emails", "courriel": "email", "courriels": "emails",
    "recordatorio": "reminder", "recordatorios": "reminders", "rappel": "reminder",
    "rappels": "reminders",
    # verbs
    "crea": "create", "créame": "create", "crear": "create", "créer": "create", "crée": "create",
    "créez": "create", "añade": "add", "agrega": "add", "ajoute": "add", "ajoutez": "add",
    "cambia": "change", "modifica": "change", "modifie": "change", "actualiza": "update",
    "mets": "set", "mettez": "set", "pon": "set", "muéstrame": "show me", "muestra": "show",
    "montre-moi": "show me", "montrez-moi": "show me", "affiche": "show", "busca": "find",
    "búscame": "find", "cherche": "find", "trouve": "find", "envía": "send", "envia": "send",
    "manda": "send", "envoie": "send", "envoyez": "send", "escribe": "write", "écris": "write",
    "rédige": "draft", "borra": "delete", "elimina": "delete", "supprime": "delete",
    "efface": "delete", "recuérdame": "remind me", "rappelle-moi": "remind me",
    "llamar": "call", "appeler": "call", "relancer": "follow up with",
    # small words
    "para": "for", "pour": "for", "con": "with", "avec": "with", "chez": "at", "sobre": "about",
    "del": "of the", "du": "of the", "en": "in", "à": "to", "un": "a", "una": "a", "une": "a",
    "el": "the", "la": "the", "le": "the", "los": "the", "las": "the", "les": "the",
    "mis": "my", "y": "and", "et": "and", "hoy": "today", "aujourd'hui": "today",
    "mañana": "tomorrow", "merci": "thanks", "gracias": "thanks", "demain": "tomorrow",
    # days
    "lunes": "Monday", "martes": "Tuesday", "miércoles": "Wednesday", "jueves": "Thursday",
    "viernes": "Friday", "sábado": "Saturday", "domingo": "Sunday", "lundi": "Monday",
    "mardi": "Tuesday", "mercredi": "Wednesday", "jeudi": "Thursday", "vendredi": "Friday",
    "samedi": "Saturday", "dimanche": "Sunday",
    # fields and values
    "prioridad": "priority", "priorité": "priority", "alta": "high", "haute": "high",
    "baja": "low", "basse": "low", "media": "medium", "moyenne": "medium",
    "probabilidad": "probability", "probabilité": "probability", "etapa": "stage",
    "étape": "stage", "importe": "amount", "monto": "amount", "montant": "amount",
    "estrellas": "stars", "étoiles": "stars", "estrella": "star", "étoile": "star",
    "etiqueta": "tag", "étiquette": "tag", "móvil": "mobile", "portable": "mobile",
    "teléfono": "phone", "téléphone": "phone", "asunto": "subject", "objet": "subject",
    "mensaje": "body", "cuerpo": "body", "estado": "status", "statut": "status",
    "hecha": "done", "hecho": "done", "terminada": "done", "terminé": "done",
    "terminée": "done", "bloqueada": "blocked", "bloquée": "blocked", "bloqué": "blocked",
    "ganado": "won", "ganada": "won", "gagné": "won", "perdido": "lost", "perdu": "lost",
    "pendientes": "pending", "pendiente": "pending", "dólares": "dollars",
    "nuevo": "new", "nueva": "new", "nouveau": "new", "nouvelle": "new",
}  # fmt: skip

#: words that are also English (or names) and say nothing about the language by themselves
_ALSO_ENGLISH = frozenset({
    "en", "un", "la", "le", "les", "el", "del", "du", "para", "con", "media", "portable",
    "affaire", "change", "y", "et", "pon", "mis", "sobre", "alta", "baja", "crea", "objet",
    "manda", "importe", "rappel",
})  # fmt: skip

#: numbers said in words before "mil" / "mille"
_NUMBERS = {
    "uno": 1, "un": 1, "dos": 2, "deux": 2, "tres": 3, "trois": 3, "cuatro": 4, "quatre": 4,
    "cinco": 5, "cinq": 5, "seis": 6, "six": 6, "siete": 7, "sept": 7, "ocho": 8, "huit": 8,
    "nueve": 9, "neuf": 9, "diez": 10, "dix": 10, "once": 11, "onze": 11, "doce": 12,
    "douze": 12, "quince": 15, "quinze": 15, "veinte": 20, "vingt": 20, "treinta": 30,
    "trente": 30, "cuarenta": 40, "quarante": 40, "cincuenta": 50, "cinquante": 50,
    "sesenta": 60, "soixante": 60, "cien": 100, "cent": 100,
}  # fmt: skip

_WORD = re.compile(
    r"(?<![\w'@.-])("
    + "|".join(re.escape(w) for w in sorted(_WORDS, key=len, reverse=True))
    + r")(?![\w'@-])",
    re.I,
)
#: a phrase is matched whole: no word character before it, nor after it unless it ends in a
#: look-ahead ("entre " before the first number of a range)
_PHRASE = [
    (re.compile(r"(?<![\w@])(?:" + p + r")" + ("" if p.endswith(")") else r"(?![\w@])"), re.I), e)
    for p, e in _PHRASES
]
_THOUSANDS = re.compile(
    r"(?<![\w.])(?P<n>\d+(?:[.,]\d+)?|" + "|".join(_NUMBERS) + r")\s+mil(?:le)?\b", re.I
)
_LABELS = r"(?:objet|sujet|asunto|subject|message|mensaje|body|cuerpo|texto|texte)"
#: a quoted text (a title, a subject, an e-mail's body), or a text after its label ("objet:
#: Visite du site, message: on arrive à 10h"): left as typed
#: a quoted text, in any of the quotes people type: typed on purpose, left as it is
QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|«[^»]*»|\u2018[^\u2019]*\u2019|\u201c[^\u201d]*\u201d")
_LABELLED = re.compile(
    r"\b" + _LABELS + r"\s*:\s*(?P<v>.+?)(?=\s*,\s*" + _LABELS + r"\s*:|\s*[.!?]?\s*$)", re.I | re.S
)


def _markers(text: str) -> int:
    said = {m[1].lower() for m in _WORD.finditer(text)}
    phrases = sum(1 for p, _ in _PHRASE if p.search(text))
    return len(said - _ALSO_ENGLISH) + phrases + len(_THOUSANDS.findall(text))


def _thousands(m: re.Match[str]) -> str:
    n = m["n"].lower()
    value = _NUMBERS[n] if n in _NUMBERS else float(n.replace(",", "."))
    return f"{round(value * 1000)}"


def plain_english(text: str) -> str:
    """``text`` with its Spanish and French request words in English (unchanged when it has
    fewer than two that are no English word)."""
    if _markers(QUOTED.sub(" ", text)) < 2:
        return text
    kept = sorted(
        [(q.start(), q.end()) for q in QUOTED.finditer(text)]
        + [(m.start("v"), m.end("v")) for m in _LABELLED.finditer(text)]
    )
    out, last = [], 0
    for start, end in kept:
        if start < last:
            continue
        out += [_translate(text[last:start]), text[start:end]]
        last = end
    out.append(_translate(text[last:]))
    return " ".join("".join(out).replace("¿", "").replace("¡", "").split())


def _translate(part: str) -> str:
    part = _THOUSANDS.sub(_thousands, part)
    for pattern, english in _PHRASE:
        part = pattern.sub(english, part)
    return _WORD.sub(lambda m: _WORDS.get(m[1].lower(), m[1]), part)


@functools.cache
def lexicon_words() -> frozenset[str]:
    """Every Spanish and French word this module reads (a spelling check leaves them be)."""
    said = set(_WORDS) | set(_NUMBERS) | {"mil", "mille"}
    for phrase, _ in _PHRASES:
        said.update(re.findall(r"[^\W\d_]{2,}", phrase))
    return frozenset(w.lower() for w in said)
