package rights_test

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"mediagw/search/rights"
	"mediagw/search/searchtest"
)

// lic is the id, version and jurisdiction a statement reads as.
type lic struct{ id, version, jurisdiction string }

// spellings are the statements of the real catalogue (../shared/data), every "© …" one as a class
// (TestRealCatalogue), with the usual forms of each licence.
var spellings = map[string]lic{
	// The real catalogue.
	"":                          {rights.Unknown, "", ""},
	"Public domain in the USA.": {rights.NoCUS, "", ""},
	"Creative Commons Attribution license (reuse allowed)":                 {rights.BY, "", ""},
	"Creative Commons Attribution license (reuse allowed":                  {rights.BY, "", ""},
	"Creative Commons Attribution license":                                 {rights.BY, "", ""},
	"Standard YouTube License":                                             {rights.InCopyright, "", ""},
	"Standard YouTube Licence":                                             {rights.InCopyright, "", ""},
	"https://www.youtube.com/t/terms":                                      {rights.InCopyright, "", ""},
	"youtube":                                                              {rights.InCopyright, "", ""},
	"Copyrighted. Read the copyright notice inside this book for details.": {rights.InCopyright, "", ""},
	"No license (All rights reserved)":                                     {rights.InCopyright, "", ""},
	"Creative Commons Attribution-NonCommercial-ShareAlike 3.0":            {rights.BYNCSA, "3.0", ""},
	"Creative Commons Attribution 2.0":                                     {rights.BY, "2.0", ""},
	"CC BY":                                                                {rights.BY, "", ""},
	"CC-BY":                                                                {rights.BY, "", ""},
	"CC BY-SA":                                                             {rights.BYSA, "", ""},
	"CC-BY-SA":                                                             {rights.BYSA, "", ""},
	"CC BY-NC-SA":                                                          {rights.BYNCSA, "", ""},
	"CC-BY-NC-SA 4.0":                                                      {rights.BYNCSA, "4.0", ""},
	"CC BY-NC-SA 4.0":                                                      {rights.BYNCSA, "4.0", ""},
	"CC BY-SA 2.5 CA":                                                      {rights.BYSA, "2.5", "ca"},
	"CC BY 3.0 AU":                                                         {rights.BY, "3.0", "au"},
	"by-nc-nd":                                                             {rights.BYNCND, "", ""},
	"http://creativecommons.org/licenses/by/3.0/":                          {rights.BY, "3.0", ""},
	"This video is licensed under the CC BY-NC-SA 3.0 license: https://creativecommons.org/licenses/by-nc-sa/3.0/\nPlease see our speaker release agreement for details: https://ep2020.europython.eu/events/speaker-release-agreement/": {rights.BYNCSA, "3.0", ""},
	"creativeCommon": {rights.Unknown, "", ""},
	"CC":             {rights.Unknown, "", ""},

	// URLs, with versions, jurisdiction ports, a network port and a deed.
	"https://creativecommons.org/licenses/by-sa/4.0/":             {rights.BYSA, "4.0", ""},
	"https://creativecommons.org/licenses/by-nc-nd/2.5/ca/":       {rights.BYNCND, "2.5", "ca"},
	"https://creativecommons.org:443/licenses/by/4.0/deed.en":     {rights.BY, "4.0", ""},
	"creativecommons.org/licenses/by-nd/3.0/de/legalcode":         {rights.BYND, "3.0", "de"},
	"<https://creativecommons.org/licenses/by-nc/2.0/>":           {rights.BYNC, "2.0", ""},
	"https://creativecommons.org/licenses/by-sa/":                 {rights.BYSA, "", ""},
	"https://creativecommons.org/licenses/by/9.9/fr/":             {rights.BY, "", ""},
	"http://creativecommons.org/publicdomain/zero/1.0/":           {rights.CC0, "1.0", ""},
	"https://creativecommons.org/publicdomain/mark/1.0/":          {rights.PDM, "1.0", ""},
	"http://rightsstatements.org/vocab/NoC-US/1.0/":               {rights.NoCUS, "", ""},
	"http://rightsstatements.org/vocab/InC/1.0/":                  {rights.InCopyright, "", ""},
	"http://rightsstatements.org/vocab/InC-EDU/1.0/":              {rights.InCopyright, "", ""},
	"http://rightsstatements.org/vocab/CNE/1.0/":                  {rights.Unknown, "", ""},
	"https://notcreativecommons.org/licenses/by/4.0/":             {rights.Unknown, "", ""},
	"https://creativecommons.org/about/ CC BY-NC 3.0":             {rights.BYNC, "3.0", ""},
	"CC BY 4.0 https://creativecommons.org/licenses/by-nc/4.0/":   {rights.BYNC, "4.0", ""},
	"See https://creativecommons.org/licenses/by/2.0/uk, thanks.": {rights.BY, "2.0", "uk"},

	// Creative Commons terms in their usual spellings.
	"CC0":               {rights.CC0, "", ""},
	"CC0 1.0 Universal": {rights.CC0, "1.0", ""},
	"CC0 1.0 Universal (CC0 1.0) Public Domain Dedication":           {rights.CC0, "1.0", ""},
	"Attribution 4.0 International (CC BY 4.0)":                      {rights.BY, "4.0", ""},
	"Attribution-ShareAlike 4.0 International (CC BY-SA 4.0)":        {rights.BYSA, "4.0", ""},
	"Attribution-ShareAlike 4.0 International":                       {rights.Unknown, "", ""},
	"Creative Commons Attribution-NoDerivs 3.0 Unported":             {rights.BYND, "3.0", ""},
	"Creative Commons Attribution-NoDerivatives 4.0 International":   {rights.BYND, "4.0", ""},
	"Creative Commons Attribution-Non-Commercial-No-Derivatives 4.0": {rights.BYNCND, "4.0", ""},
	"Creative Commons Attribution Share Alike":                       {rights.BYSA, "", ""},
	"creative commons attribution-noncommercial 2.5 it":              {rights.BYNC, "2.5", "it"},
	"cc by-nc-nd 3.0 us":          {rights.BYNCND, "3.0", "us"},
	"CC BY 4.0 US":                {rights.BY, "4.0", ""},
	"CC BY 3.0 or later":          {rights.BY, "3.0", ""},
	"CC BY 9.0":                   {rights.BY, "", ""},
	"BY-SA 3.0":                   {rights.BYSA, "3.0", ""},
	"by-nc 2.5 ca":                {rights.BYNC, "2.5", "ca"},
	"by":                          {rights.BY, "", ""},
	"© 2019 Jane Doe, CC BY 4.0":  {rights.BY, "4.0", ""},
	"Creative Commons":            {rights.Unknown, "", ""},
	"CC license":                  {rights.Unknown, "", ""},
	"cc: the author":              {rights.Unknown, "", ""},
	"CC SA":                       {rights.Unknown, "", ""},
	"Photography by Rony Vissers": {rights.Unknown, "", ""},
	"Vito Acconci":                {rights.Unknown, "", ""},
	"Please see our speaker release agreement for details: https://ep2020.europython.eu/events/speaker-release-agreement/": {rights.Unknown, "", ""},

	// Public domain.
	"Public Domain":                      {rights.PDM, "", ""},
	"public domain.":                     {rights.PDM, "", ""},
	"Public Domain Mark 1.0":             {rights.PDM, "", ""},
	"Public domain in the United States": {rights.NoCUS, "", ""},
	"This work is in the public domain":  {rights.Unknown, "", ""},

	// In copyright.
	"(c) 2019 Jane Doe":    {rights.InCopyright, "", ""},
	"(C) The Trustees":     {rights.InCopyright, "", ""},
	"Copyright 2020 NASA":  {rights.InCopyright, "", ""},
	"All rights reserved.": {rights.InCopyright, "", ""},
	"© Vito Acconci":       {rights.InCopyright, "", ""},
	"YouTube":              {rights.InCopyright, "", ""},
	"YouTube video":        {rights.Unknown, "", ""},
	"Some rights reserved": {rights.Unknown, "", ""},
	"© Johan Grimonprez, Photography by Rony Vissers ": {rights.InCopyright, "", ""},
}

func TestRead(t *testing.T) {
	for statement, want := range spellings {
		l := rights.Read(statement)
		if got := (lic{l.ID, l.Version, l.Jurisdiction}); got != want {
			t.Errorf("Read(%q) = %+v, want %+v", statement, got, want)
		}
	}
}

// TestCanonical: the URL and the uses each id has by the format's table.
func TestCanonical(t *testing.T) {
	cases := []struct {
		statement    string
		url          string
		commercial   bool
		modification bool
	}{
		{"CC0", "https://creativecommons.org/publicdomain/zero/1.0/", true, true},
		{"Public Domain Mark", "https://creativecommons.org/publicdomain/mark/1.0/", true, true},
		{"Public domain in the USA.", "http://rightsstatements.org/vocab/NoC-US/1.0/", true, true},
		{"CC BY", "https://creativecommons.org/licenses/by/", true, true},
		{"CC BY-SA 2.5 CA", "https://creativecommons.org/licenses/by-sa/2.5/ca/", true, true},
		{"CC BY-ND 4.0", "https://creativecommons.org/licenses/by-nd/4.0/", true, false},
		{"CC BY-NC 3.0", "https://creativecommons.org/licenses/by-nc/3.0/", false, true},
		{"CC BY-NC-SA", "https://creativecommons.org/licenses/by-nc-sa/", false, true},
		{"by-nc-nd", "https://creativecommons.org/licenses/by-nc-nd/", false, false},
		{"© the artist", "http://rightsstatements.org/vocab/InC/1.0/", false, false},
		{"CC", "", false, false},
	}
	for _, c := range cases {
		l := rights.Read(c.statement)
		if l.URL != c.url || l.Commercial != c.commercial || l.Modification != c.modification {
			t.Errorf("Read(%q) = url %q, commercial %v, modification %v; want %q, %v, %v",
				c.statement, l.URL, l.Commercial, l.Modification, c.url, c.commercial, c.modification)
		}
	}
}

// TestRealCatalogue: every statement of the real catalogue is in the table, or is a "© …" one,
// which reads as in copyright.
func TestRealCatalogue(t *testing.T) {
	path, ok := searchtest.RealDataPath()
	if !ok {
		t.Skip("no ../shared/data/catalogue.ndjson beside the module root")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]int{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var line struct {
			Rights *string `json:"rights"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if line.Rights != nil {
			seen[*line.Rights]++
		} else {
			seen[""]++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	copyrighted := 0
	for statement := range seen {
		if strings.HasPrefix(strings.TrimSpace(statement), "©") {
			copyrighted++
			if l := rights.Read(statement); l.ID != rights.InCopyright {
				t.Errorf("Read(%q) = %s, want %s", statement, l.ID, rights.InCopyright)
			}
			continue
		}
		if _, ok := spellings[statement]; !ok {
			t.Errorf("the real catalogue's statement %q (%d items) is not in the table", statement, seen[statement])
		}
	}
	if copyrighted == 0 {
		t.Error("no \"© …\" statement in the real catalogue")
	}
}

// FuzzRead: any statement reads as one of the ids, with a version Creative Commons published, a
// jurisdiction only beside a version, a URL for every id but unknown and the uses of the id; case
// does not matter.
func FuzzRead(f *testing.F) {
	for statement := range spellings {
		f.Add(statement)
	}
	versions := []string{"", "1.0", "2.0", "2.1", "2.5", "3.0", "4.0"}
	f.Fuzz(func(t *testing.T, statement string) {
		l := rights.Read(statement)
		if !slices.Contains(rights.IDs, l.ID) {
			t.Fatalf("Read(%q).ID = %q, not an id", statement, l.ID)
		}
		if !slices.Contains(versions, l.Version) {
			t.Errorf("Read(%q).Version = %q", statement, l.Version)
		}
		if l.Jurisdiction != "" && (l.Version == "" || len(l.Jurisdiction) != 2) {
			t.Errorf("Read(%q): jurisdiction %q with version %q", statement, l.Jurisdiction, l.Version)
		}
		if (l.URL == "") != (l.ID == rights.Unknown) {
			t.Errorf("Read(%q): id %s with URL %q", statement, l.ID, l.URL)
		}
		if l.ID == rights.Unknown && (l.Commercial || l.Modification || l.Version != "") {
			t.Errorf("Read(%q) = %+v: unknown allows nothing and has no version", statement, l)
		}
		if isASCII(statement) {
			if up := rights.Read(strings.ToUpper(statement)); up != l {
				t.Errorf("Read(%q) = %+v, but in upper case %+v", statement, l, up)
			}
		}
	})
}

func isASCII(s string) bool {
	for _, c := range []byte(s) {
		if c >= 0x80 {
			return false
		}
	}
	return true
}
