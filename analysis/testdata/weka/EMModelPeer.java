// EMModelPeer runs Weka's EM exactly as jinteractiveworld's EMModel.train
// (GT-RAIL/interactive_world, jinteractiveworld/.../model/EMModel.java) does
// and prints the result with full precision, as an independent peer for the
// Go port in analysis/weka.go. Input on stdin: data sets separated by lines
// "---", one placement per line, "x y theta"; the output of each set ends
// with a line "end". Run: java -cp /usr/share/java/weka.jar EMModelPeer.java
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;

import weka.clusterers.EM;
import weka.core.Attribute;
import weka.core.FastVector;
import weka.core.Instance;
import weka.core.Instances;
import weka.filters.Filter;
import weka.filters.unsupervised.attribute.Remove;

public class EMModelPeer {
  public static void main(String[] args) throws Exception {
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    ArrayList<String> lines = new ArrayList<String>();
    String line;
    while ((line = in.readLine()) != null) {
      line = line.trim();
      if (line.equals("---")) {
        run(lines);
        lines.clear();
      } else if (!line.isEmpty()) {
        lines.add(line);
      }
    }
    if (!lines.isEmpty()) run(lines);
  }

  static void run(ArrayList<String> lines) throws Exception {
    FastVector atts = new FastVector(4);
    atts.addElement(new Attribute("x"));
    atts.addElement(new Attribute("y"));
    atts.addElement(new Attribute("z"));
    atts.addElement(new Attribute("theta"));
    Instances instances = new Instances("data", atts, 0);
    for (String l : lines) {
      String[] f = l.split("\\s+");
      Instance inst = new Instance(4);
      inst.setDataset(instances);
      inst.setValue(0, Double.parseDouble(f[0]));
      inst.setValue(1, Double.parseDouble(f[1]));
      inst.setValue(2, Double.parseDouble(f[1]));
      inst.setValue(3, Double.parseDouble(f[2]));
      instances.add(inst);
    }
    Remove rm = new Remove();
    rm.setAttributeIndicesArray(new int[] { 2 });
    rm.setInputFormat(instances);
    Instances data = Filter.useFilter(instances, rm);

    EM em = new EM();
    em.buildClusterer(data);
    double[][][] cd = em.getClusterModelsNumericAtts();
    double[] priors = em.getClusterPriors();
    System.out.println("clusters " + cd.length);
    for (int m = 0; m < cd.length; m++) {
      System.out.println("cluster " + m + " " + priors[m] + " " + cd[m][0][0] + " " + cd[m][0][1] + " "
          + cd[m][1][0] + " " + cd[m][1][1] + " " + cd[m][2][0] + " " + cd[m][2][1]);
    }
    @SuppressWarnings("unchecked")
    ArrayList<Instance>[] clusters = (ArrayList<Instance>[]) new ArrayList[cd.length];
    for (int i = 0; i < clusters.length; i++) clusters[i] = new ArrayList<Instance>();
    StringBuilder assign = new StringBuilder("assign");
    for (int i = 0; i < data.numInstances(); i++) {
      int c = em.clusterInstance(data.instance(i));
      clusters[c].add(data.instance(i));
      assign.append(' ').append(c);
    }
    System.out.println(assign);
    double decision = Double.POSITIVE_INFINITY;
    int best = -1;
    for (int m = 0; m < clusters.length; m++) {
      ArrayList<Instance> cur = clusters[m];
      double distance = 0;
      for (int i = 0; i < cur.size(); i++) {
        for (int j = 0; j < cur.size(); j++) {
          if (i != j) {
            double sum = 0;
            for (int k = 0; k < cur.get(i).numAttributes(); k++) {
              sum += Math.pow(cur.get(i).value(k) - cur.get(j).value(k), 2.0);
            }
            distance += Math.sqrt(sum);
          }
        }
      }
      double density = distance / (cur.size() * (cur.size() - 1)) * 1.0
          / (((double) cur.size()) / ((double) data.numInstances()));
      if (density < decision) {
        decision = density;
        best = m;
      }
    }
    System.out.println("decision " + decision + " " + best);
    System.out.println("end");
  }
}
