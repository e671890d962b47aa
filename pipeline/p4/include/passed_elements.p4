/* SPDX-License-Identifier: BSD-3-Clause
 *
 * The third pass's first state (ina_tna.p4, INA_THIRD_PASS): the first two
 * passes' INA_TWO_PASS_ELEMENTS elements into `passed` and `passed_hi`, one
 * extract each, included inside the parser state passed_elements. The
 * back end splits the state where one parser cycle cannot hold them.
 */
#if INA_TWO_PASS_ELEMENTS > 0
        pkt.extract(hdr.passed[0]);
#endif
#if INA_TWO_PASS_ELEMENTS > 1
        pkt.extract(hdr.passed[1]);
#endif
#if INA_TWO_PASS_ELEMENTS > 2
        pkt.extract(hdr.passed[2]);
#endif
#if INA_TWO_PASS_ELEMENTS > 3
        pkt.extract(hdr.passed[3]);
#endif
#if INA_TWO_PASS_ELEMENTS > 4
        pkt.extract(hdr.passed[4]);
#endif
#if INA_TWO_PASS_ELEMENTS > 5
        pkt.extract(hdr.passed[5]);
#endif
#if INA_TWO_PASS_ELEMENTS > 6
        pkt.extract(hdr.passed[6]);
#endif
#if INA_TWO_PASS_ELEMENTS > 7
        pkt.extract(hdr.passed[7]);
#endif
#if INA_TWO_PASS_ELEMENTS > 8
        pkt.extract(hdr.passed[8]);
#endif
#if INA_TWO_PASS_ELEMENTS > 9
        pkt.extract(hdr.passed[9]);
#endif
#if INA_TWO_PASS_ELEMENTS > 10
        pkt.extract(hdr.passed[10]);
#endif
#if INA_TWO_PASS_ELEMENTS > 11
        pkt.extract(hdr.passed[11]);
#endif
#if INA_TWO_PASS_ELEMENTS > 12
        pkt.extract(hdr.passed[12]);
#endif
#if INA_TWO_PASS_ELEMENTS > 13
        pkt.extract(hdr.passed[13]);
#endif
#if INA_TWO_PASS_ELEMENTS > 14
        pkt.extract(hdr.passed[14]);
#endif
#if INA_TWO_PASS_ELEMENTS > 15
        pkt.extract(hdr.passed[15]);
#endif
#if INA_TWO_PASS_ELEMENTS > 16
        pkt.extract(hdr.passed[16]);
#endif
#if INA_TWO_PASS_ELEMENTS > 17
        pkt.extract(hdr.passed[17]);
#endif
#if INA_TWO_PASS_ELEMENTS > 18
        pkt.extract(hdr.passed[18]);
#endif
#if INA_TWO_PASS_ELEMENTS > 19
        pkt.extract(hdr.passed[19]);
#endif
#if INA_TWO_PASS_ELEMENTS > 20
        pkt.extract(hdr.passed[20]);
#endif
#if INA_TWO_PASS_ELEMENTS > 21
        pkt.extract(hdr.passed[21]);
#endif
#if INA_TWO_PASS_ELEMENTS > 22
        pkt.extract(hdr.passed[22]);
#endif
#if INA_TWO_PASS_ELEMENTS > 23
        pkt.extract(hdr.passed[23]);
#endif
#if INA_TWO_PASS_ELEMENTS > 24
        pkt.extract(hdr.passed[24]);
#endif
#if INA_TWO_PASS_ELEMENTS > 25
        pkt.extract(hdr.passed[25]);
#endif
#if INA_TWO_PASS_ELEMENTS > 26
        pkt.extract(hdr.passed[26]);
#endif
#if INA_TWO_PASS_ELEMENTS > 27
        pkt.extract(hdr.passed[27]);
#endif
#if INA_TWO_PASS_ELEMENTS > 28
        pkt.extract(hdr.passed[28]);
#endif
#if INA_TWO_PASS_ELEMENTS > 29
        pkt.extract(hdr.passed[29]);
#endif
#if INA_TWO_PASS_ELEMENTS > 30
        pkt.extract(hdr.passed[30]);
#endif
#if INA_TWO_PASS_ELEMENTS > 31
        pkt.extract(hdr.passed[31]);
#endif
#if INA_TWO_PASS_ELEMENTS > 32
        pkt.extract(hdr.passed_hi[0]);
#endif
#if INA_TWO_PASS_ELEMENTS > 33
        pkt.extract(hdr.passed_hi[1]);
#endif
#if INA_TWO_PASS_ELEMENTS > 34
        pkt.extract(hdr.passed_hi[2]);
#endif
#if INA_TWO_PASS_ELEMENTS > 35
        pkt.extract(hdr.passed_hi[3]);
#endif
#if INA_TWO_PASS_ELEMENTS > 36
        pkt.extract(hdr.passed_hi[4]);
#endif
#if INA_TWO_PASS_ELEMENTS > 37
        pkt.extract(hdr.passed_hi[5]);
#endif
#if INA_TWO_PASS_ELEMENTS > 38
        pkt.extract(hdr.passed_hi[6]);
#endif
#if INA_TWO_PASS_ELEMENTS > 39
        pkt.extract(hdr.passed_hi[7]);
#endif
#if INA_TWO_PASS_ELEMENTS > 40
        pkt.extract(hdr.passed_hi[8]);
#endif
#if INA_TWO_PASS_ELEMENTS > 41
        pkt.extract(hdr.passed_hi[9]);
#endif
#if INA_TWO_PASS_ELEMENTS > 42
        pkt.extract(hdr.passed_hi[10]);
#endif
#if INA_TWO_PASS_ELEMENTS > 43
        pkt.extract(hdr.passed_hi[11]);
#endif
#if INA_TWO_PASS_ELEMENTS > 44
        pkt.extract(hdr.passed_hi[12]);
#endif
#if INA_TWO_PASS_ELEMENTS > 45
        pkt.extract(hdr.passed_hi[13]);
#endif
#if INA_TWO_PASS_ELEMENTS > 46
        pkt.extract(hdr.passed_hi[14]);
#endif
#if INA_TWO_PASS_ELEMENTS > 47
        pkt.extract(hdr.passed_hi[15]);
#endif
#if INA_TWO_PASS_ELEMENTS > 48
        pkt.extract(hdr.passed_hi[16]);
#endif
#if INA_TWO_PASS_ELEMENTS > 49
        pkt.extract(hdr.passed_hi[17]);
#endif
#if INA_TWO_PASS_ELEMENTS > 50
        pkt.extract(hdr.passed_hi[18]);
#endif
#if INA_TWO_PASS_ELEMENTS > 51
        pkt.extract(hdr.passed_hi[19]);
#endif
#if INA_TWO_PASS_ELEMENTS > 52
        pkt.extract(hdr.passed_hi[20]);
#endif
#if INA_TWO_PASS_ELEMENTS > 53
        pkt.extract(hdr.passed_hi[21]);
#endif
#if INA_TWO_PASS_ELEMENTS > 54
        pkt.extract(hdr.passed_hi[22]);
#endif
#if INA_TWO_PASS_ELEMENTS > 55
        pkt.extract(hdr.passed_hi[23]);
#endif
#if INA_TWO_PASS_ELEMENTS > 56
        pkt.extract(hdr.passed_hi[24]);
#endif
#if INA_TWO_PASS_ELEMENTS > 57
        pkt.extract(hdr.passed_hi[25]);
#endif
#if INA_TWO_PASS_ELEMENTS > 58
        pkt.extract(hdr.passed_hi[26]);
#endif
#if INA_TWO_PASS_ELEMENTS > 59
        pkt.extract(hdr.passed_hi[27]);
#endif
#if INA_TWO_PASS_ELEMENTS > 60
        pkt.extract(hdr.passed_hi[28]);
#endif
#if INA_TWO_PASS_ELEMENTS > 61
        pkt.extract(hdr.passed_hi[29]);
#endif
