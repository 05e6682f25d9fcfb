"""What the official-client tests share: the replies scripted on the fake (plain, searching, with
files) and the question, asked the same way by an official SDK and by our own client."""

from debates.providers.base import Message, Part
from tests.fakes import files
from tests.fakes.wire import Cite

QUESTION = [Message("system", "Answer in one line."), Message("user", "What is six times seven?")]
ASKED = [{"role": m.role, "content": m.content} for m in QUESTION]  # as an SDK is given it
PLAIN = "Six times seven is forty-two, as it always was."
USAGE = (21, 9)

BOILING = Cite("https://example.org/boiling", "Boiling point", "water boils at 100 °C", "Water boils at 100 °C")
EVEREST = Cite("https://example.org/everest", "Everest", "around 70 °C at the summit", "about 70 °C on Everest")
UNUSED = Cite("https://example.org/unused", "Looked up, never cited")
CITES = (BOILING, EVEREST, UNUSED)
# As each provider writes a cited answer: plain sentences (Anthropic's blocks, Gemini's segments),
# Markdown links after the claims (OpenAI's and OpenRouter's search models), "[n]" markers (Perplexity).
SAID = "Water boils at 100 °C at sea level. It boils lower, about 70 °C on Everest. So it depends."
LINKED = (
    "Water boils at 100 °C at sea level. ([example.org](https://example.org/boiling?utm_source=openai)) "
    "It boils lower, about 70 °C on Everest ([example.org](https://example.org/everest?utm_source=openai)). "
    "So it depends."
)
MARKED = "Water boils at 100 °C at sea level.[1] It boils lower, about 70 °C on Everest.[2] So it depends."
ACCENTED = "Çà 🌊: Water boils at 100 °C at sea level. Là-haut, it is about 70 °C on Everest 🏔️. So it depends."

IMAGE = Part("image", "chart.png", "image/png", files.image(8, 6))
PDF = Part("pdf", "report.pdf", "application/pdf", files.pdf(["Revenue grew 12 %."]))
WITH_FILES = [QUESTION[0], Message("user", "What do these show?", (IMAGE, PDF))]
