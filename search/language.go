package search

import (
	"iter"
	"strings"
)

// iso6391 lists every ISO 639-1 code with its English names: the ISO 639 registration authority's
// names first, then common alternatives (some from CLDR). A fixed table, rather than CLDR display
// names alone, keeps "Norwegian" meaning no and "Bengali" meaning bn whatever x/text ships.
var iso6391 = map[string][]string{
	"aa": {"Afar"}, "ab": {"Abkhazian"}, "ae": {"Avestan"}, "af": {"Afrikaans"}, "ak": {"Akan"},
	"am": {"Amharic"}, "an": {"Aragonese"}, "ar": {"Arabic"}, "as": {"Assamese"}, "av": {"Avaric"},
	"ay": {"Aymara"}, "az": {"Azerbaijani"}, "ba": {"Bashkir"}, "be": {"Belarusian"}, "bg": {"Bulgarian"},
	"bh": {"Bihari"}, "bi": {"Bislama"}, "bm": {"Bambara"}, "bn": {"Bengali", "Bangla"}, "bo": {"Tibetan"},
	"br": {"Breton"}, "bs": {"Bosnian"}, "ca": {"Catalan", "Valencian"}, "ce": {"Chechen"}, "ch": {"Chamorro"},
	"co": {"Corsican"}, "cr": {"Cree"}, "cs": {"Czech"},
	"cu": {"Church Slavic", "Church Slavonic", "Old Church Slavonic", "Old Slavonic", "Old Bulgarian"},
	"cv": {"Chuvash"}, "cy": {"Welsh"}, "da": {"Danish"}, "de": {"German"},
	"dv": {"Divehi", "Dhivehi", "Maldivian"}, "dz": {"Dzongkha"}, "ee": {"Ewe"}, "el": {"Greek", "Modern Greek"},
	"en": {"English"}, "eo": {"Esperanto"}, "es": {"Spanish", "Castilian"}, "et": {"Estonian"}, "eu": {"Basque"},
	"fa": {"Persian", "Farsi"}, "ff": {"Fulah", "Fula"}, "fi": {"Finnish"}, "fj": {"Fijian"}, "fo": {"Faroese"},
	"fr": {"French"}, "fy": {"Western Frisian", "Frisian"}, "ga": {"Irish"}, "gd": {"Gaelic", "Scottish Gaelic"},
	"gl": {"Galician"}, "gn": {"Guarani"}, "gu": {"Gujarati"}, "gv": {"Manx"}, "ha": {"Hausa"},
	"he": {"Hebrew"}, "hi": {"Hindi"}, "ho": {"Hiri Motu"}, "hr": {"Croatian"}, "ht": {"Haitian", "Haitian Creole"},
	"hu": {"Hungarian"}, "hy": {"Armenian"}, "hz": {"Herero"}, "ia": {"Interlingua"}, "id": {"Indonesian"},
	"ie": {"Interlingue", "Occidental"}, "ig": {"Igbo"}, "ii": {"Sichuan Yi", "Nuosu"}, "ik": {"Inupiaq"},
	"io": {"Ido"}, "is": {"Icelandic"}, "it": {"Italian"}, "iu": {"Inuktitut"}, "ja": {"Japanese"},
	"jv": {"Javanese"}, "ka": {"Georgian"}, "kg": {"Kongo"}, "ki": {"Kikuyu", "Gikuyu"},
	"kj": {"Kuanyama", "Kwanyama"}, "kk": {"Kazakh"}, "kl": {"Kalaallisut", "Greenlandic"},
	"km": {"Central Khmer", "Khmer"}, "kn": {"Kannada"}, "ko": {"Korean"}, "kr": {"Kanuri"},
	"ks": {"Kashmiri"}, "ku": {"Kurdish"}, "kv": {"Komi"}, "kw": {"Cornish"}, "ky": {"Kirghiz", "Kyrgyz"},
	"la": {"Latin"}, "lb": {"Luxembourgish", "Letzeburgesch"}, "lg": {"Ganda"},
	"li": {"Limburgan", "Limburger", "Limburgish"}, "ln": {"Lingala"}, "lo": {"Lao"}, "lt": {"Lithuanian"},
	"lu": {"Luba-Katanga"}, "lv": {"Latvian"}, "mg": {"Malagasy"}, "mh": {"Marshallese"}, "mi": {"Maori"},
	"mk": {"Macedonian"}, "ml": {"Malayalam"}, "mn": {"Mongolian"}, "mr": {"Marathi"}, "ms": {"Malay"},
	"mt": {"Maltese"}, "my": {"Burmese"}, "na": {"Nauru"}, "nb": {"Norwegian Bokmål", "Bokmål"},
	"nd": {"North Ndebele"}, "ne": {"Nepali"}, "ng": {"Ndonga"}, "nl": {"Dutch", "Flemish"},
	"nn": {"Norwegian Nynorsk", "Nynorsk"}, "no": {"Norwegian"}, "nr": {"South Ndebele"},
	"nv": {"Navajo", "Navaho"}, "ny": {"Chichewa", "Chewa", "Nyanja"}, "oc": {"Occitan"}, "oj": {"Ojibwa"},
	"om": {"Oromo"}, "or": {"Oriya", "Odia"}, "os": {"Ossetian", "Ossetic"}, "pa": {"Punjabi", "Panjabi"},
	"pi": {"Pali"}, "pl": {"Polish"}, "ps": {"Pashto", "Pushto"}, "pt": {"Portuguese"}, "qu": {"Quechua"},
	"rm": {"Romansh"}, "rn": {"Rundi", "Kirundi"}, "ro": {"Romanian", "Moldavian", "Moldovan"},
	"ru": {"Russian"}, "rw": {"Kinyarwanda"}, "sa": {"Sanskrit"}, "sc": {"Sardinian"}, "sd": {"Sindhi"},
	"se": {"Northern Sami"}, "sg": {"Sango"}, "sh": {"Serbo-Croatian"}, "si": {"Sinhala", "Sinhalese"},
	"sk": {"Slovak"}, "sl": {"Slovenian", "Slovene"}, "sm": {"Samoan"}, "sn": {"Shona"}, "so": {"Somali"},
	"sq": {"Albanian"}, "sr": {"Serbian"}, "ss": {"Swati"}, "st": {"Southern Sotho", "Sesotho"},
	"su": {"Sundanese"}, "sv": {"Swedish"}, "sw": {"Swahili"}, "ta": {"Tamil"}, "te": {"Telugu"},
	"tg": {"Tajik"}, "th": {"Thai"}, "ti": {"Tigrinya"}, "tk": {"Turkmen"}, "tl": {"Tagalog"},
	"tn": {"Tswana"}, "to": {"Tonga", "Tongan"}, "tr": {"Turkish"}, "ts": {"Tsonga"}, "tt": {"Tatar"},
	"tw": {"Twi"}, "ty": {"Tahitian"}, "ug": {"Uighur", "Uyghur"}, "uk": {"Ukrainian"}, "ur": {"Urdu"},
	"uz": {"Uzbek"}, "ve": {"Venda"}, "vi": {"Vietnamese"}, "vo": {"Volapük"}, "wa": {"Walloon"},
	"wo": {"Wolof"}, "xh": {"Xhosa"}, "yi": {"Yiddish"}, "yo": {"Yoruba"}, "za": {"Zhuang", "Chuang"},
	"zh": {"Chinese"}, "zu": {"Zulu"},
}

// withdrawnCodes are former ISO 639-1 codes that old clients still send, mapped to their successors.
var withdrawnCodes = map[string]string{"iw": "he", "in": "id", "ji": "yi", "jw": "jv", "mo": "ro"}

// LanguageCode returns the ISO 639-1 code that code names, in any case, with a withdrawn code
// mapped to its successor ("IW" -> "he"): the one form the index stores and filters on.
func LanguageCode(code string) (string, bool) {
	if len(code) != 2 {
		return "", false
	}
	code = strings.ToLower(code)
	if to, ok := withdrawnCodes[code]; ok {
		code = to
	}
	if _, ok := iso6391[code]; !ok {
		return "", false
	}
	return code, true
}

// Languages yields every ISO 639-1 code with its English names.
func Languages() iter.Seq2[string, []string] {
	return func(yield func(string, []string) bool) {
		for code, names := range iso6391 {
			if !yield(code, names) {
				return
			}
		}
	}
}
